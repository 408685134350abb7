import type { Address, TransactionSigner } from "@solana/kit";

import { deriveIssuerAddresses, deriveProgramDataAddress } from "../addresses.js";
import { getInitializeInstruction, getInitializeInstructionDataEncoder } from "../generated/index.js";
import { assertU8 } from "../validation.js";
import { asAbasInstruction, asProgramDerivedAddress, type AbasInstruction } from "./account-metas.js";

export type InitializeInstructionDataInput = Readonly<{
  credentialBump: number;
  attestationSchemaBump: number;
  batchSchemaBump: number;
  programDataBump: number;
}>;

/** `[0, credential_bump, attestation_schema_bump, batch_schema_bump, program_data_bump]` */
export function encodeInitializeInstructionData({
  credentialBump,
  attestationSchemaBump,
  batchSchemaBump,
  programDataBump,
}: InitializeInstructionDataInput): Uint8Array {
  assertU8(credentialBump, "credentialBump");
  assertU8(attestationSchemaBump, "attestationSchemaBump");
  assertU8(batchSchemaBump, "batchSchemaBump");
  assertU8(programDataBump, "programDataBump");
  return Uint8Array.from(
    getInitializeInstructionDataEncoder().encode({
      credentialBump,
      attestationSchemaBump,
      batchSchemaBump,
      programDataBump,
    }),
  );
}

export type InitializeInstructionInput = Readonly<{
  programId: Address;
  /** The program's upgrade authority: only it may initialize; it pays for the three accounts. */
  authority: TransactionSigner;
}>;

/** Creates the Credential and the two Schemas; runs once per deployment, signed by the upgrade authority. */
export async function buildInitializeInstruction({
  programId,
  authority,
}: InitializeInstructionInput): Promise<AbasInstruction> {
  const [{ credential, attestationSchema, batchSchema }, programData] = await Promise.all([
    deriveIssuerAddresses(programId),
    deriveProgramDataAddress(programId),
  ]);
  return asAbasInstruction(
    getInitializeInstruction(
      {
        authority,
        credential: asProgramDerivedAddress(credential),
        attestationSchema: asProgramDerivedAddress(attestationSchema),
        batchSchema: asProgramDerivedAddress(batchSchema),
        programData: asProgramDerivedAddress(programData),
      },
      { programAddress: programId },
    ),
  );
}
