/**
 * The REST contract's schemas (`@abas/api-contract`, TypeBox, i.e. JSON Schema) as zod schemas,
 * which the MCP SDK takes for a tool's output: the tools answer in the API's own shapes, from
 * one definition.
 */
import type { Static, TObject } from "@abas/api-contract";
import { z } from "zod";

/** A zod shape whose every field has the contract's static type. */
type ContractShape<T> = { [Key in keyof T]-?: z.ZodType<T[Key], T[Key]> };

export function zodObjectFromContract<S extends TObject>(schema: S): z.ZodObject<ContractShape<Static<S>>> {
  // The JSON text of a TypeBox schema is plain JSON Schema: TypeBox's own markers are symbols.
  const converted = z.fromJSONSchema(JSON.parse(JSON.stringify(schema)) as z.core.JSONSchema.JSONSchema);
  if (!(converted instanceof z.ZodObject)) {
    throw new Error(`the contract schema "${schema.description ?? "?"}" did not convert to a zod object`);
  }
  return converted as unknown as z.ZodObject<ContractShape<Static<S>>>;
}
