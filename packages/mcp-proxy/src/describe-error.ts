import { getAbasErrorCodeName, isAbasError } from "@abas/errors";

/** `CODE_NAME: message`, with the cause's own code when it has one (why a batch failed). */
export function describeError(error: unknown): string {
  if (!isAbasError(error)) return error instanceof Error ? error.message : String(error);
  const text = `${getAbasErrorCodeName(error.context.__code)}: ${error.message}`;
  const cause = (error.context as { cause?: unknown }).cause ?? error.cause;
  return cause === undefined ? text : `${text} (cause: ${describeError(cause)})`;
}
