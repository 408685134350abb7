/** The SAS layout type codes our schemas use (SAS numbers every Borsh type it supports). */
export const SasType = {
  U8: 0,
  U64: 3,
  I64: 8,
  Bool: 10,
  VecU8: 13,
} as const;
export type SasType = (typeof SasType)[keyof typeof SasType];

export type SchemaKind = "attestation" | "batch";

export type SchemaDefinition = Readonly<{
  name: string;
  version: number;
  description: string;
  /** One SAS type code per field, in field order. */
  layout: readonly SasType[];
  fieldNames: readonly string[];
}>;

/** The two Schemas `initialize` creates, exactly as docs/program.md describes them. */
export const SCHEMAS: Readonly<Record<SchemaKind, SchemaDefinition>> = {
  attestation: {
    name: "BehaviorAttestation",
    version: 1,
    description: "One action of an autonomous agent, signed by the agent's key",
    layout: [SasType.U8, SasType.Bool, SasType.VecU8, SasType.VecU8, SasType.VecU8, SasType.I64, SasType.U64],
    fieldNames: [
      "action_type",
      "privacy_mode",
      "action_hash",
      "agent_signature",
      "operator",
      "timestamp",
      "slot",
    ],
  },
  batch: {
    name: "BehaviorBatch",
    // v1 stored every leaf in the account; v2 keeps only the Merkle frontier while leaves are published.
    version: 2,
    description: "A Merkle commitment to up to 100 actions of an autonomous agent",
    layout: [
      SasType.VecU8,
      SasType.U8,
      SasType.U8,
      SasType.VecU8,
      SasType.VecU8,
      SasType.I64,
      SasType.U64,
      SasType.U8,
      SasType.VecU8,
    ],
    fieldNames: [
      "merkle_root",
      "item_count",
      "action_types",
      "agent_signature",
      "operator",
      "timestamp",
      "slot",
      "leaves_published",
      "frontier",
    ],
  },
};

/** The kind of one of our schemas from its name, or undefined for any other name. */
export function getSchemaKindFromName(name: string): SchemaKind | undefined {
  if (name === SCHEMAS.attestation.name) return "attestation";
  if (name === SCHEMAS.batch.name) return "batch";
  return undefined;
}

const utf8Length = (text: string): number => new TextEncoder().encode(text).length;

/**
 * The size of a Schema account: discriminator, credential, then name, description, layout and
 * field names each behind a u32 byte length (every field name behind its own u32 length), then
 * is_paused and version.
 */
export function getSchemaAccountSize(kind: SchemaKind): number {
  const schema = SCHEMAS[kind];
  const fieldNamesSize = schema.fieldNames.reduce((size, fieldName) => size + 4 + utf8Length(fieldName), 0);
  return (
    1 +
    32 +
    (4 + utf8Length(schema.name)) +
    (4 + utf8Length(schema.description)) +
    (4 + schema.layout.length) +
    (4 + fieldNamesSize) +
    1 +
    1
  );
}
