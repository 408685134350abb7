import type { Address, ProgramDerivedAddress, ReadonlyUint8Array } from "@solana/kit";

import { HASH_SIZE } from "./constants.js";
import {
  findAgentPda,
  findAttestationPda,
  findBatchPda,
  findCredentialPda,
  findProgramDataPda,
  findSchemaPda,
} from "./generated/index.js";
import { SCHEMAS, type SchemaKind } from "./schemas.js";
import { assertByteLength } from "./validation.js";

/**
 * A canonical PDA (the highest bump off the curve) and its bump, which the instruction data passes
 * to the program as a hint: the program proves it canonical and refuses any other bump. The seeds
 * are the IDL's (`program/idl/abas-idl.ts`), through the generated `find*Pda` functions.
 */
export type DerivedAddress = Readonly<{ address: Address; bump: number }>;

const derived = async (pda: Promise<ProgramDerivedAddress>): Promise<DerivedAddress> => {
  const [address, bump] = await pda;
  return { address, bump };
};

/** `["credential"]` */
export async function deriveCredentialAddress(programId: Address): Promise<DerivedAddress> {
  return await derived(findCredentialPda({ programAddress: programId }));
}

/** `["schema", credential, "BehaviorAttestation" | "BehaviorBatch", [version]]` */
export async function deriveSchemaAddress(
  programId: Address,
  credential: Address,
  kind: SchemaKind,
): Promise<DerivedAddress> {
  const { name, version } = SCHEMAS[kind];
  return await derived(findSchemaPda({ credential, name, version }, { programAddress: programId }));
}

/** `["agent", agent]` */
export async function deriveAgentAddress(programId: Address, agent: Address): Promise<DerivedAddress> {
  return await derived(findAgentPda({ agent }, { programAddress: programId }));
}

/** `["attestation", agent, stored_hash]` */
export async function deriveAttestationAddress(
  programId: Address,
  agent: Address,
  storedHash: ReadonlyUint8Array,
): Promise<DerivedAddress> {
  assertByteLength(storedHash, HASH_SIZE, "storedHash");
  return await derived(findAttestationPda({ agent, storedHash }, { programAddress: programId }));
}

/** `["batch", agent, merkle_root]` */
export async function deriveBatchAddress(
  programId: Address,
  agent: Address,
  merkleRoot: ReadonlyUint8Array,
): Promise<DerivedAddress> {
  assertByteLength(merkleRoot, HASH_SIZE, "merkleRoot");
  return await derived(findBatchPda({ agent, merkleRoot }, { programAddress: programId }));
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
  return await derived(findProgramDataPda({ program: programId }));
}
