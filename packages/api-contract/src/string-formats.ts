/**
 * The string formats the contract's schemas use, registered with TypeBox so its checks know them
 * (TypeBox knows no format by itself and fails every value of an unknown one).
 */
import { FormatRegistry } from "@sinclair/typebox";

/** RFC 3339 date-time, as `Date.prototype.toISOString` writes it and JSON Schema's `date-time` means. */
const RFC_3339_DATE_TIME =
  /^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\.[0-9]+)?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$/i;

export const CONTRACT_STRING_FORMATS: Readonly<Record<string, (value: string) => boolean>> = {
  "date-time": (value) => RFC_3339_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)),
};

for (const [name, check] of Object.entries(CONTRACT_STRING_FORMATS)) {
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, check);
}
