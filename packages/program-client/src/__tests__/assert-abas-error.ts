import assert from "node:assert/strict";

import { isAbasError, type AbasError, type AbasErrorCode } from "@abas/errors";

function assertIsAbasErrorOfCode<TCode extends AbasErrorCode>(
  thrown: unknown,
  code: TCode,
): AbasError<TCode> {
  assert.ok(isAbasError(thrown), `expected AbasError ${code}, got ${String(thrown)}`);
  assert.equal(
    thrown.context.__code,
    code,
    `expected code ${code}, got ${thrown.context.__code}: ${thrown.message}`,
  );
  return thrown as AbasError<TCode>;
}

/** Asserts that `action` throws the AbasError of exactly `code`, and returns it for context checks. */
export function assertThrowsAbasError<TCode extends AbasErrorCode>(
  action: () => unknown,
  code: TCode,
): AbasError<TCode> {
  try {
    action();
  } catch (error) {
    return assertIsAbasErrorOfCode(error, code);
  }
  assert.fail(`expected AbasError ${code}, nothing was thrown`);
}

/** The async twin of `assertThrowsAbasError`. */
export async function assertRejectsAbasError<TCode extends AbasErrorCode>(
  action: () => Promise<unknown>,
  code: TCode,
): Promise<AbasError<TCode>> {
  try {
    await action();
  } catch (error) {
    return assertIsAbasErrorOfCode(error, code);
  }
  assert.fail(`expected AbasError ${code}, nothing was rejected`);
}
