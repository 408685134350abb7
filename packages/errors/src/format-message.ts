import type { AbasErrorCode } from "./codes.js";
import { AbasErrorMessages } from "./messages.js";

/** The plural nouns the messages put after a count, with their singular, for a count of 1. */
const SINGULAR_NOUNS: Readonly<Record<string, string>> = {
  actions: "action",
  bytes: "byte",
  items: "item",
  leaves: "leaf",
  requests: "request",
  slots: "slot",
  times: "time",
};

/** `count` and the plural `noun`, or its singular for a count of 1 ("1 item", not "1 items"). */
function counted(count: string, noun: string): string {
  return `${count} ${count === "1" ? (SINGULAR_NOUNS[noun] ?? noun) : noun}`;
}

function formatContextValue(value: unknown): string {
  if (value instanceof Uint8Array) return counted(String(value.length), "bytes");
  if (Array.isArray(value)) return value.map(formatContextValue).join(", ");
  return String(value);
}

/**
 * The message of `code`, with each `$name` replaced by `context.name` when the context has it; a
 * count of 1 takes the singular of the noun after it ("1 item", not "1 items").
 */
export function getAbasErrorMessage(
  code: AbasErrorCode,
  context: Readonly<Record<string, unknown>> = {},
): string {
  return AbasErrorMessages[code].replace(
    /\$(\w+)(?: (\w+))?/g,
    (placeholder, name: string, noun: string | undefined) => {
      if (!(name in context)) return placeholder;
      const value = formatContextValue(context[name]);
      return noun === undefined ? value : counted(value, noun);
    },
  );
}
