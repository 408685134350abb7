import {
  getAddressEncoder,
  getProgramDerivedAddress,
  type Address,
  type ReadonlyUint8Array,
} from "@solana/kit";

import {
  AGENT_SEED,
  ATTESTATION_SEED,
  BATCH_SEED,
  BPF_LOADER_UPGRADEABLE_ADDRESS,
  CREDENTIAL_SEED,
  HASH_SIZE,
  SCHEMA_SEED,
} from "./constants.js";
import { SCHEMAS, type SchemaKind } from "./schemas.js";
import { assertByteLength } from "./validation.js";

/**
 * A canonical PDA (the highest bump off the curve) and its bump, which the instruction data passes
 * to the program as a hint: the program proves it canonical and refuses any other bump.
 */
export type DerivedAddress = Readonly<{ address: Address; bump: number }>;

const addressBytes = (value: Address): ReadonlyUint8Array => getAddressEncoder().encode(value);

async function derive(programId: Address, seeds: (string | ReadonlyUint8Array)[]): Promise<DerivedAddress> {
  const [address, bump] = await getProgramDerivedAddress({ programAddress: programId, seeds });
  return { address, bump };
}

/** `["credential"]` */
export async function deriveCredentialAddress(programId: Address): Promise<DerivedAddress> {
  return await derive(programId, [CREDENTIAL_SEED]);
}

/** `["schema", credential, "BehaviorAttestation" | "BehaviorBatch", [1]]` */
export async function deriveSchemaAddress(
  programId: Address,
  credential: Address,
  kind: SchemaKind,
): Promise<DerivedAddress> {
  const schema = SCHEMAS[kind];
  return await derive(programId, [
    SCHEMA_SEED,
    addressBytes(credential),
    schema.name,
    Uint8Array.of(schema.version),
  ]);
}

/** `["agent", agent]` */
export async function deriveAgentAddress(programId: Address, agent: Address): Promise<DerivedAddress> {
  return await derive(programId, [AGENT_SEED, addressBytes(agent)]);
}

/** `["attestation", agent, stored_hash]` */
export async function deriveAttestationAddress(
  programId: Address,
  agent: Address,
  storedHash: ReadonlyUint8Array,
): Promise<DerivedAddress> {
  assertByteLength(storedHash, HASH_SIZE, "storedHash");
  return await derive(programId, [ATTESTATION_SEED, addressBytes(agent), storedHash]);
}

/** `["batch", agent, merkle_root]` */
export async function deriveBatchAddress(
  programId: Address,
  agent: Address,
  merkleRoot: ReadonlyUint8Array,
): Promise<DerivedAddress> {
  assertByteLength(merkleRoot, HASH_SIZE, "merkleRoot");
  return await derive(programId, [BATCH_SEED, addressBytes(agent), merkleRoot]);
}

export type IssuerAddresses = Readonly<{
  credential: DerivedAddress;
  attestationSchema: DerivedAddress;
  batchSchema: DerivedAddress;
}>;

/** The Credential and both Schemas: the accounts `initialize` creates and the attest instructions read. */
export async function deriveIssuerAddresses(programId: Address): Promise<IssuerAddresses> {
  const credential = await deriveCredentialAddress(programId);
  const [attestationSchema, batchSchema] = await Promise.all([
    deriveSchemaAddress(programId, credential.address, "attestation"),
    deriveSchemaAddress(programId, credential.address, "batch"),
  ]);
  return { credential, attestationSchema, batchSchema };
}

/** The Upgradeable Loader's ProgramData account of a program: `[program]` under the loader. */
export async function deriveProgramDataAddress(programId: Address): Promise<DerivedAddress> {
  const [address, bump] = await getProgramDerivedAddress({
    programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    seeds: [addressBytes(programId)],
  });
  return { address, bump };
}
