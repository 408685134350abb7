import type { Address, ReadonlyUint8Array, TransactionSigner } from "@solana/kit";

import type { ActionType } from "../action-types.js";
import { deriveAgentAddress, deriveAttestationAddress, deriveIssuerAddresses } from "../addresses.js";
import { HASH_SIZE } from "../constants.js";
import { getAttestInstruction, getAttestInstructionDataEncoder } from "../generated/index.js";
import { assertActionType, assertByteLength, assertPrivacyMode, assertU8 } from "../validation.js";
import { asAbasInstruction, asProgramDerivedAddress, type AbasInstruction } from "./account-metas.js";

export type AttestInstructionDataInput = Readonly<{
  actionType: number;
  /** A boolean, or any byte to send a flag the program must reject. */
  privacyMode: boolean | number;
  attestationBump: number;
  storedHash: ReadonlyUint8Array;
}>;

/** `[3, action_type, privacy_mode, attestation_bump, stored_hash(32)]`; values are only checked to fit. */
export function encodeAttestInstructionData({
  actionType,
  privacyMode,
  attestationBump,
  storedHash,
}: AttestInstructionDataInput): Uint8Array {
  const privacyFlag = typeof privacyMode === "boolean" ? Number(privacyMode) : privacyMode;
  assertU8(actionType, "actionType");
  assertU8(privacyFlag, "privacyMode");
  assertU8(attestationBump, "attestationBump");
  assertByteLength(storedHash, HASH_SIZE, "storedHash");
  return Uint8Array.from(
    getAttestInstructionDataEncoder().encode({
      actionType,
      privacyMode: privacyFlag,
      attestationBump,
      storedHash,
    }),
  );
}

export type AttestInstructionInput = Readonly<{
  programId: Address;
  /** The agent's operator; pays for the attestation account. */
  operator: TransactionSigner;
  agent: Address;
  actionType: ActionType;
  privacyMode: boolean;
  /** The action hash, or in privacy mode the commitment. */
  storedHash: ReadonlyUint8Array;
}>;

/**
 * Records one action. The transaction must carry, right before this instruction, the Ed25519
 * instruction verifying the agent's signature of the attest message (`buildAttestMessage`,
 * `buildEd25519VerifyInstruction`).
 */
export async function buildAttestInstruction({
  programId,
  operator,
  agent,
  actionType,
  privacyMode,
  storedHash,
}: AttestInstructionInput): Promise<AbasInstruction> {
  assertActionType(actionType);
  assertPrivacyMode(privacyMode);
  assertByteLength(storedHash, HASH_SIZE, "storedHash");
  const [issuer, agentAccount, attestation] = await Promise.all([
    deriveIssuerAddresses(programId),
    deriveAgentAddress(programId, agent),
    deriveAttestationAddress(programId, agent, storedHash),
  ]);
  return asAbasInstruction(
    getAttestInstruction(
      {
        operator,
        agent,
        agentAccount: agentAccount.address,
        attestation: asProgramDerivedAddress(attestation),
        credential: issuer.credential.address,
        attestationSchema: issuer.attestationSchema.address,
        actionType,
        privacyMode: Number(privacyMode),
        storedHash,
      },
      { programAddress: programId },
    ),
  );
}
