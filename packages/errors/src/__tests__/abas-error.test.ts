import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { AbasError, isAbasError } from "../abas-error.js";
import {
  ABAS_PROGRAM__DUPLICATE_BATCH,
  ABAS_RUNTIME__BLOCKHASH_NOT_FOUND,
  ABAS_SDK__INVALID_ACTION_TYPE,
  ABAS_SDK__INVALID_BYTE_LENGTH,
} from "../codes.js";

describe("AbasError", () => {
  it("carries its code in context.__code and exposes it as .code", () => {
    // Given an error with context
    const error = new AbasError(ABAS_SDK__INVALID_ACTION_TYPE, { actionType: 7 });
    // Then the code is in the context, kit style, and on the getter
    assert.equal(error.context.__code, ABAS_SDK__INVALID_ACTION_TYPE);
    assert.equal(error.code, ABAS_SDK__INVALID_ACTION_TYPE);
    assert.equal(error.context.actionType, 7);
    assert.equal(error.name, "AbasError");
    assert.ok(error instanceof Error);
  });

  it("writes the context into its message", () => {
    const error = new AbasError(ABAS_SDK__INVALID_ACTION_TYPE, { actionType: 7 });
    assert.match(error.message, /^Invalid action type 7: expected 0 \(Transaction\)/);
  });

  it("keeps a cause apart from the context", () => {
    // Given an error built with a cause
    const cause = new Error("low level");
    const error = new AbasError(ABAS_RUNTIME__BLOCKHASH_NOT_FOUND, { cause });
    // Then the cause is the standard Error cause and not part of the context
    assert.equal(error.cause, cause);
    assert.deepEqual(Object.keys(error.context), ["__code"]);
  });

  it("freezes its context", () => {
    const error = new AbasError(ABAS_SDK__INVALID_ACTION_TYPE, { actionType: 9 });
    assert.ok(Object.isFrozen(error.context));
  });
});

describe("isAbasError", () => {
  it("recognises any AbasError without a code, and only the given code with one", () => {
    // Given an error of one code
    const error: unknown = new AbasError(ABAS_PROGRAM__DUPLICATE_BATCH, {
      programErrorName: "DuplicateBatch",
    });
    // Then it is an AbasError, of its code and not of another
    assert.equal(isAbasError(error), true);
    assert.equal(isAbasError(error, ABAS_PROGRAM__DUPLICATE_BATCH), true);
    assert.equal(isAbasError(error, ABAS_SDK__INVALID_ACTION_TYPE), false);
  });

  it("narrows the context to the code's context type", () => {
    const error: unknown = new AbasError(ABAS_SDK__INVALID_BYTE_LENGTH, {
      field: "merkleRoot",
      expectedLength: 32,
      actualLength: 3,
    });
    if (!isAbasError(error, ABAS_SDK__INVALID_BYTE_LENGTH))
      assert.fail("expected an INVALID_BYTE_LENGTH error");
    // The typed context fields compile only because the guard narrowed the type.
    const { field, expectedLength, actualLength } = error.context;
    assert.deepEqual([field, expectedLength, actualLength], ["merkleRoot", 32, 3]);
  });

  it("recognises an AbasError from another copy of the package, without instanceof", () => {
    // Given an object shaped like an AbasError made by a duplicate copy of this package
    const fromAnotherCopy = Object.assign(new Error("x"), {
      name: "AbasError",
      context: { __code: ABAS_SDK__INVALID_ACTION_TYPE, actionType: 5 },
    });
    // Then it is recognised by its name and code
    assert.equal(isAbasError(fromAnotherCopy, ABAS_SDK__INVALID_ACTION_TYPE), true);
  });

  it("rejects values that are not AbasErrors", () => {
    for (const value of [
      undefined,
      null,
      42,
      "AbasError",
      new Error("plain"),
      { name: "AbasError" },
      { name: "AbasError", context: null },
      { name: "AbasError", context: { __code: "3000" } },
      { name: "SolanaError", context: { __code: ABAS_SDK__INVALID_ACTION_TYPE } },
    ]) {
      assert.equal(isAbasError(value), false, `accepted ${String(value)}`);
    }
  });
});
