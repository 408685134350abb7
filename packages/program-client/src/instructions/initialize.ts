import type { Address, TransactionSigner } from "@solana/kit";

import { deriveIssuerAddresses } from "../addresses.js";
import { InstructionDiscriminator, SYSTEM_PROGRAM_ADDRESS } from "../constants.js";
import { assertU8 } from "../validation.js";
import { readonly, writable, writableSigner, type AbasInstruction } from "./account-metas.js";

export type InitializeInstructionDataInput = Readonly<{
  credentialBump: number;
  attestationSchemaBump: number;
  batchSchemaBump: number;
}>;

/** `[0, credential_bump, attestation_schema_bump, batch_schema_bump]` */
export function encodeInitializeInstructionData({
  credentialBump,
  attestationSchemaBump,
  batchSchemaBump,
}: InitializeInstructionDataInput): Uint8Array {
  assertU8(credentialBump, "credentialBump");
  assertU8(attestationSchemaBump, "attestationSchemaBump");
  assertU8(batchSchemaBump, "batchSchemaBump");
  return Uint8Array.of(
    InstructionDiscriminator.Initialize,
    credentialBump,
    attestationSchemaBump,
    batchSchemaBump,
  );
}

export type InitializeInstructionInput = Readonly<{
  programId: Address;
  /** Pays for the Credential and the two Schemas; anyone may, the content is fixed. */
  payer: TransactionSigner;
}>;

/** Creates the Credential and the two Schemas; runs once per deployment. */
export async function buildInitializeInstruction({
  programId,
  payer,
}: InitializeInstructionInput): Promise<AbasInstruction> {
  const { credential, attestationSchema, batchSchema } = await deriveIssuerAddresses(programId);
  return {
    programAddress: programId,
    accounts: [
      writableSigner(payer),
      writable(credential.address),
      writable(attestationSchema.address),
      writable(batchSchema.address),
      readonly(SYSTEM_PROGRAM_ADDRESS),
    ],
    data: encodeInitializeInstructionData({
      credentialBump: credential.bump,
      attestationSchemaBump: attestationSchema.bump,
      batchSchemaBump: batchSchema.bump,
    }),
  };
}
