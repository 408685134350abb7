import type { AbasErrorCode } from "./codes.js";
import type { AbasErrorContext } from "./context.js";
import { getAbasErrorMessage } from "./format-message.js";

type AbasErrorCodedContext = {
  [P in AbasErrorCode]: Readonly<{ __code: P }> &
    (AbasErrorContext[P] extends undefined ? object : Readonly<AbasErrorContext[P]>);
};

/** The constructor takes the context (merged with `ErrorOptions`) only for codes that have one. */
type AbasErrorConstructorArguments<TCode extends AbasErrorCode> = AbasErrorContext[TCode] extends undefined
  ? [code: TCode, errorOptions?: ErrorOptions]
  : [code: TCode, contextAndErrorOptions: AbasErrorContext[TCode] & ErrorOptions];

const ABAS_ERROR_NAME = "AbasError";

/**
 * An error with a stable numeric code and the typed context of that code. The code lives in
 * `context.__code` (as in @solana/kit), so errors survive structured cloning and duplicated copies
 * of this package; test them with `isAbasError`, not `instanceof`.
 */
export class AbasError<TCode extends AbasErrorCode = AbasErrorCode> extends Error {
  readonly context: AbasErrorCodedContext[TCode];

  constructor(...[code, contextAndErrorOptions]: AbasErrorConstructorArguments<TCode>) {
    const context: Record<string, unknown> = { __code: code };
    let errorOptions: ErrorOptions | undefined;
    for (const [key, value] of Object.entries(contextAndErrorOptions ?? {})) {
      if (key === "cause") errorOptions = { cause: value };
      else context[key] = value;
    }
    super(getAbasErrorMessage(code, context), errorOptions);
    this.context = Object.freeze(context) as AbasErrorCodedContext[TCode];
    this.name = ABAS_ERROR_NAME;
  }

  get code(): TCode {
    return this.context.__code as TCode;
  }
}

/**
 * True when `e` is an AbasError, and, when `code` is given, one with that code; the type narrows
 * to that code's context.
 */
export function isAbasError<TCode extends AbasErrorCode>(e: unknown, code?: TCode): e is AbasError<TCode> {
  if (typeof e !== "object" || e === null) return false;
  const candidate = e as { name?: unknown; context?: unknown };
  if (candidate.name !== ABAS_ERROR_NAME) return false;
  if (typeof candidate.context !== "object" || candidate.context === null) return false;
  const actualCode = (candidate.context as { __code?: unknown }).__code;
  if (typeof actualCode !== "number") return false;
  return code === undefined || actualCode === code;
}
