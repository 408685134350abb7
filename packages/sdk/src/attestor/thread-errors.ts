/**
 * Errors as they cross from the attestor's sender thread to the caller's: a structured clone keeps
 * an Error's message but drops its own properties, so an `AbasError` would lose its code and
 * context. An error is sent as plain data and rebuilt on the other side: an `AbasError` with the
 * same code, context and cause, any other Error with its name, message and stack.
 */
import { AbasError, isAbasError, type AbasErrorCode } from "@abas/errors";

export type ThreadError =
  | { kind: "abas"; code: number; context: Record<string, unknown>; stack?: string; cause?: ThreadError }
  | { kind: "error"; name: string; message: string; stack?: string; cause?: ThreadError }
  | { kind: "value"; value: unknown };

/** A value that survives a structured clone as it is, or its text. */
function cloneable(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return String(value);
  }
}

export function toThreadError(error: unknown): ThreadError {
  if (isAbasError(error)) {
    const { __code: code, ...context } = error.context as Record<string, unknown> & { __code: number };
    return {
      kind: "abas",
      code,
      context: Object.fromEntries(Object.entries(context).map(([key, value]) => [key, cloneable(value)])),
      ...(error.stack === undefined ? {} : { stack: error.stack }),
      ...(error.cause === undefined ? {} : { cause: toThreadError(error.cause) }),
    };
  }
  if (error instanceof Error) {
    return {
      kind: "error",
      name: error.name,
      message: error.message,
      ...(error.stack === undefined ? {} : { stack: error.stack }),
      ...(error.cause === undefined ? {} : { cause: toThreadError(error.cause) }),
    };
  }
  return { kind: "value", value: cloneable(error) };
}

export function fromThreadError(sent: ThreadError): unknown {
  if (sent.kind === "value") return sent.value;
  const cause = sent.cause === undefined ? {} : { cause: fromThreadError(sent.cause) };
  let error: Error;
  if (sent.kind === "abas") {
    // The context was checked when the error was made; the constructor only puts it back together.
    const rebuild = AbasError as unknown as new (code: AbasErrorCode, context: object) => AbasError;
    error = new rebuild(sent.code as AbasErrorCode, { ...sent.context, ...cause });
  } else {
    error = new Error(sent.message, cause);
    error.name = sent.name;
  }
  if (sent.stack !== undefined) error.stack = sent.stack;
  return error;
}
