/** Builders the contract's schemas share: string enums, nullable values, base58 addresses. */
import { Kind, Type, TypeRegistry, type TSchema, type TUnsafe } from "@sinclair/typebox";

/** Base58 text of a 32-byte public key or account address. */
export const ADDRESS_PATTERN = "^[1-9A-HJ-NP-Za-km-z]{32,44}$";

export const Address = (description: string) => Type.String({ pattern: ADDRESS_PATTERN, description });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const STRING_ENUM_KIND = "StringEnum";

// TypeBox checks a custom kind through its registry: here, one of the listed strings.
if (!TypeRegistry.Has(STRING_ENUM_KIND)) {
  TypeRegistry.Set<{ enum: readonly string[] }>(
    STRING_ENUM_KIND,
    (schema, value) => typeof value === "string" && schema.enum.includes(value),
  );
}

/**
 * A string enum that validates and documents as `{ type: "string", enum: [...] }`. Its type
 * carries both TypeBox 0.34's static type and the plain JSON Schema shape, from which the Fastify
 * type provider (TypeBox 1.x) infers request types.
 */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnsafe<T[number]> & { type: "string"; enum: T } {
  return Type.Unsafe<T[number]>({
    [Kind]: STRING_ENUM_KIND,
    type: "string",
    enum: values,
    ...options,
  }) as TUnsafe<T[number]> & { type: "string"; enum: T };
}
