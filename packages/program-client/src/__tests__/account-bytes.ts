/**
 * Account data assembled by hand from the tables of docs/program.md, field by field, for the
 * decoder tests. Each builder takes overrides so a test can corrupt exactly one field.
 */
import { ByteBuilder, bytesOf } from "./byte-builder.js";
import {
  addressBytes,
  addressOf,
  AGENT,
  MERKLE_ROOT,
  OPERATOR,
  PROGRAM_ID,
  SIGNATURE,
  STORED_HASH,
} from "./fixtures.js";

export const CREDENTIAL = addressOf(0xc1);
export const ATTESTATION_SCHEMA = addressOf(0xc2);
export const BATCH_SCHEMA = addressOf(0xc3);

export type AgentBytesFields = {
  discriminator: number;
  version: number;
  bump: number;
  status: number;
  allowedActionTypes: number;
  reserved: readonly number[];
};

export function agentAccountBytes(overrides: Partial<AgentBytesFields> = {}): Uint8Array {
  const fields = {
    discriminator: 16,
    version: 1,
    bump: 254,
    status: 1,
    allowedActionTypes: 0b0101,
    reserved: [0, 0, 0],
    ...overrides,
  };
  return new ByteBuilder()
    .u8(fields.discriminator)
    .u8(fields.version)
    .u8(fields.bump)
    .u8(fields.status)
    .u8(fields.allowedActionTypes)
    .bytes(fields.reserved)
    .bytes(addressBytes(OPERATOR))
    .bytes(addressBytes(AGENT))
    .i64(1_700_000_000n) // registered_at
    .u64(123_456_789n) // registered_slot
    .i64(-1n) // updated_at: negative, to check the sign of i64 fields
    .u64(2n ** 64n - 1n) // attestation_count: the largest u64
    .u64(7n) // batch_count
    .u64(350n) // batch_item_count
    .i64(1_700_000_500n) // last_attested_at
    .build();
}

export function credentialAccountBytes({ name = "ABAS", signers = [] as Uint8Array[] } = {}): Uint8Array {
  const builder = new ByteBuilder().u8(0).bytes(addressBytes(PROGRAM_ID)).string(name).u32(signers.length);
  signers.forEach((signer) => builder.bytes(signer));
  return builder.build();
}

export type SchemaBytesFields = {
  name: string;
  description: string;
  layout: number[];
  fieldNames: string[];
  isPaused: number;
  version: number;
};

/** The BehaviorAttestation schema, typed in from the documentation rather than from the code. */
export const DOCUMENTED_ATTESTATION_SCHEMA: SchemaBytesFields = {
  name: "BehaviorAttestation",
  description: "One action of an autonomous agent, signed by the agent's key",
  layout: [0, 10, 13, 13, 13, 8, 3],
  fieldNames: [
    "action_type",
    "privacy_mode",
    "action_hash",
    "agent_signature",
    "operator",
    "timestamp",
    "slot",
  ],
  isPaused: 0,
  version: 1,
};

export const DOCUMENTED_BATCH_SCHEMA: SchemaBytesFields = {
  name: "BehaviorBatch",
  description: "A Merkle commitment to up to 100 actions of an autonomous agent",
  layout: [13, 0, 0, 13, 13, 8, 3, 0, 13],
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
  isPaused: 0,
  version: 2,
};

export function schemaAccountBytes(fields: SchemaBytesFields): Uint8Array {
  const names = new ByteBuilder();
  fields.fieldNames.forEach((fieldName) => names.string(fieldName));
  return new ByteBuilder()
    .u8(1)
    .bytes(addressBytes(CREDENTIAL))
    .string(fields.name)
    .string(fields.description)
    .vec(fields.layout)
    .vec(names.build())
    .u8(fields.isPaused)
    .u8(fields.version)
    .build();
}

function envelope(
  nonce: Uint8Array,
  schema: Uint8Array,
  data: Uint8Array,
  dataLength = data.length,
): Uint8Array {
  return new ByteBuilder()
    .u8(2)
    .bytes(nonce)
    .bytes(addressBytes(CREDENTIAL))
    .bytes(schema)
    .u32(dataLength)
    .bytes(data)
    .bytes(addressBytes(AGENT)) // signer
    .i64(0n) // expiry
    .bytes(bytesOf(32, 0)) // token_account
    .build();
}

export type AttestationDataFields = {
  actionType: number;
  privacyMode: number;
  hashLength: number;
  dataLength: number;
};

export function attestationAccountBytes(overrides: Partial<AttestationDataFields> = {}): Uint8Array {
  const fields = { actionType: 2, privacyMode: 1, hashLength: 32, dataLength: 158, ...overrides };
  const data = new ByteBuilder()
    .u8(fields.actionType)
    .u8(fields.privacyMode)
    .u32(fields.hashLength)
    .bytes(STORED_HASH)
    .vec(SIGNATURE)
    .vec(addressBytes(OPERATOR))
    .i64(1_700_000_100n)
    .u64(987_654n)
    .build();
  return envelope(STORED_HASH, addressBytes(ATTESTATION_SCHEMA), data, fields.dataLength);
}

export type BatchDataFields = {
  itemCount: number;
  actionTypes: number;
  leavesPublished: number;
  /** The Merkle frontier: 7 × 32 bytes while leaves are pending, none once complete. */
  frontier: Uint8Array;
  frontierLength: number;
  dataLength: number;
};

/** A batch account, pending (2 of 3 leaves published) unless a test says otherwise. */
export function batchAccountBytes(overrides: Partial<BatchDataFields> = {}): Uint8Array {
  const itemCount = overrides.itemCount ?? 3;
  const leavesPublished = overrides.leavesPublished ?? 2;
  const frontier = overrides.frontier ?? bytesOf(leavesPublished === itemCount ? 0 : 224, 0x5a);
  const fields = {
    itemCount,
    actionTypes: 0b0011,
    leavesPublished,
    frontier,
    frontierLength: frontier.length,
    dataLength: 163 + frontier.length,
    ...overrides,
  };
  const data = new ByteBuilder()
    .vec(MERKLE_ROOT)
    .u8(fields.itemCount)
    .u8(fields.actionTypes)
    .vec(SIGNATURE)
    .vec(addressBytes(OPERATOR))
    .i64(1_700_000_200n)
    .u64(987_700n)
    .u8(fields.leavesPublished)
    .u32(fields.frontierLength)
    .bytes(fields.frontier)
    .build();
  return envelope(MERKLE_ROOT, addressBytes(BATCH_SCHEMA), data, fields.dataLength);
}
