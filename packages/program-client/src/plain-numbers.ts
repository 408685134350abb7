/**
 * kit's RPC client reads every JSON number as a bigint (`{ InstructionError: [1n, { Custom: 1204n }] }`).
 * This turns such a value back into the plain JSON the node sent, so it can be shown, stored or
 * passed to `JSON.stringify` (which refuses bigints).
 */
export function withPlainNumbers(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(withPlainNumbers);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, withPlainNumbers(entry)]));
  }
  return value;
}
