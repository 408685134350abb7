import type { AbasErrorCode } from "./codes.js";
import { AbasErrorMessages } from "./messages.js";

function formatContextValue(value: unknown): string {
  if (value instanceof Uint8Array) return `${value.length} bytes`;
  if (Array.isArray(value)) return value.map(formatContextValue).join(", ");
  return String(value);
}

/** The message of `code`, with each `$name` replaced by `context.name` when the context has it. */
export function getAbasErrorMessage(
  code: AbasErrorCode,
  context: Readonly<Record<string, unknown>> = {},
): string {
  return AbasErrorMessages[code].replace(/\$(\w+)/g, (placeholder, name: string) =>
    name in context ? formatContextValue(context[name]) : placeholder,
  );
}
