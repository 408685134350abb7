import type { ReadonlyUint8Array } from "@solana/kit";

import { getSchemaDecoder, getSchemaEncoder, SCHEMA_DISCRIMINATOR, type Schema } from "../generated/index.js";
import {
  decodeGeneratedAccount,
  malformedAccountData,
  type GeneratedAccountLayout,
} from "./generated-account.js";

/** A SAS Schema: the names and SAS type codes of the fields of the attestations that use it. */
export type SchemaAccount = Readonly<
  Omit<Schema, "discriminator" | "layout" | "fieldNames"> & {
    /** One SAS type code per field. */
    layout: readonly number[];
    fieldNames: readonly string[];
  }
>;

const SCHEMA_LAYOUT: GeneratedAccountLayout<Schema> = {
  accountType: "Schema",
  discriminator: SCHEMA_DISCRIMINATOR,
  decoder: getSchemaDecoder(),
  encoder: getSchemaEncoder(),
};

export function decodeSchemaAccount(data: ReadonlyUint8Array): SchemaAccount {
  const { discriminator: _discriminator, layout, ...schema } = decodeGeneratedAccount(SCHEMA_LAYOUT, data);
  if (schema.fieldNames.length !== layout.length) {
    throw malformedAccountData(
      "Schema",
      `${schema.fieldNames.length} field names for ${layout.length} layout fields`,
      "field_names",
    );
  }
  return { ...schema, layout: Array.from(layout) };
}
