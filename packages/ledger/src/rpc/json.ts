/**
 * JSON with bigints written as exact integer literals. Lamports, slots and `rentEpoch`
 * (u64::MAX) can exceed 2^53, and validators print them exactly; clients such as @solana/kit
 * read them back as bigints.
 */
export function stringifyJson(value: unknown): string {
  switch (typeof value) {
    case "bigint":
      return value.toString();
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "undefined":
    case "function":
    case "symbol":
      return "null";
    default:
      break;
  }
  if (value === null) return "null";
  if (Array.isArray(value)) return `[${value.map(stringifyJson).join(",")}]`;
  const fields: string[] = [];
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    if (field !== undefined) fields.push(`${JSON.stringify(key)}:${stringifyJson(field)}`);
  }
  return `{${fields.join(",")}}`;
}
