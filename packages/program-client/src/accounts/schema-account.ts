import type { Address, ReadonlyUint8Array } from "@solana/kit";

import { AccountDiscriminator } from "../constants.js";
import { AccountDataReader } from "./account-data-reader.js";

/** A SAS Schema: the names and SAS type codes of the fields of the attestations that use it. */
export type SchemaAccount = Readonly<{
  credential: Address;
  name: string;
  description: string;
  /** One SAS type code per field. */
  layout: readonly number[];
  fieldNames: readonly string[];
  isPaused: boolean;
  version: number;
}>;

/** SAS stores the field names as one Vec<u8> (u32 byte length) holding each name as u32 length + UTF-8. */
function readFieldNames(reader: AccountDataReader): string[] {
  const byteLength = reader.u32("field_names");
  reader.expectAvailable("field_names", byteLength);
  const end = reader.offset + byteLength;
  const fieldNames: string[] = [];
  while (reader.offset < end) {
    if (reader.offset + 4 > end) throw reader.malformed("field_names", "a name length runs past the field");
    const nameLength = reader.u32("field_names");
    if (reader.offset + nameLength > end) throw reader.malformed("field_names", "a name runs past the field");
    fieldNames.push(reader.utf8("field_names", nameLength));
  }
  return fieldNames;
}

export function decodeSchemaAccount(data: ReadonlyUint8Array): SchemaAccount {
  const reader = new AccountDataReader(data, "Schema");
  reader.expectDiscriminator(AccountDiscriminator.Schema);
  const credential = reader.address("credential");
  const name = reader.string("name");
  const description = reader.string("description");
  const layout = Array.from(reader.vec("layout"));
  const fieldNames = readFieldNames(reader);
  if (fieldNames.length !== layout.length) {
    throw reader.malformed("field_names", `${fieldNames.length} names for ${layout.length} layout fields`);
  }
  const isPaused = reader.bool("is_paused");
  const version = reader.u8("version");
  reader.expectEnd();
  return { credential, name, description, layout, fieldNames, isPaused, version };
}
