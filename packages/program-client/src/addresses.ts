import type { Address, ProgramDerivedAddress, ReadonlyUint8Array } from "@solana/kit";

import { HASH_SIZE } from "./constants.js";
import { bytesToHex } from "./hex.js";
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

const DERIVATION_CACHE_LIMIT = 1024;
const derivations = new Map<string, Promise<DerivedAddress>>();

/**
 * A derivation tries bumps from 255 down, each a SHA-256 and an on-curve check, and clients derive
 * the same few addresses again and again (the issuer's, an agent's, a batch's for each of its
 * transactions): the last DERIVATION_CACHE_LIMIT derivations are kept, a failed one is not.
 */
function derived(key: string, find: () => Promise<ProgramDerivedAddress>): Promise<DerivedAddress> {
  const cached = derivations.get(key);
  if (cached !== undefined) return cached;
  const derivation = find().then(([address, bump]) => Object.freeze({ address, bump }));
  if (derivations.size >= DERIVATION_CACHE_LIMIT) derivations.delete(derivations.keys().next().value!);
  derivations.set(key, derivation);
  derivation.catch(() => derivations.delete(key));
  return derivation;
}

/** `["credential"]` */
export async function deriveCredentialAddress(programId: Address): Promise<DerivedAddress> {
  return await derived(`credential ${programId}`, () => findCredentialPda({ programAddress: programId }));
}

/** `["schema", credential, "BehaviorAttestation" | "BehaviorBatch", [version]]` */
export async function deriveSchemaAddress(
  programId: Address,
  credential: Address,
  kind: SchemaKind,
): Promise<DerivedAddress> {
  const { name, version } = SCHEMAS[kind];
  return await derived(`schema ${programId} ${credential} ${kind}`, () =>
    findSchemaPda({ credential, name, version }, { programAddress: programId }),
  );
}

/** `["agent", agent]` */
export async function deriveAgentAddress(programId: Address, agent: Address): Promise<DerivedAddress> {
  return await derived(`agent ${programId} ${agent}`, () =>
    findAgentPda({ agent }, { programAddress: programId }),
  );
}

/** `["attestation", agent, stored_hash]` */
export async function deriveAttestationAddress(
  programId: Address,
  agent: Address,
  storedHash: ReadonlyUint8Array,
): Promise<DerivedAddress> {
  assertByteLength(storedHash, HASH_SIZE, "storedHash");
  return await derived(`attestation ${programId} ${agent} ${bytesToHex(storedHash)}`, () =>
    findAttestationPda({ agent, storedHash }, { programAddress: programId }),
  );
}

/** `["batch", agent, merkle_root]` */
export async function deriveBatchAddress(
  programId: Address,
  agent: Address,
  merkleRoot: ReadonlyUint8Array,
): Promise<DerivedAddress> {
  assertByteLength(merkleRoot, HASH_SIZE, "merkleRoot");
  return await derived(`batch ${programId} ${agent} ${bytesToHex(merkleRoot)}`, () =>
    findBatchPda({ agent, merkleRoot }, { programAddress: programId }),
  );
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
  return await derived(`program-data ${programId}`, () => findProgramDataPda({ program: programId }));
}
