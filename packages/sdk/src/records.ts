/**
 * JSON-friendly views of the program's accounts: hashes in lowercase hex, signatures in base58,
 * action types and statuses by name, counters and times as numbers.
 */
import {
  actionTypesFromMask,
  bytesToHex,
  computeLeafHash,
  getActionTypeName,
  type ActionTypeName,
  type AgentAccount,
  type AttestationAccount,
  type BatchAccount,
  type LeafData,
} from "@abas/program-client";
import { getBase58Decoder, type Address } from "@solana/kit";

import { getAgentStatusName, type AgentStatusName } from "./input-validation.js";

export const signatureToBase58 = (signature: Uint8Array): string => getBase58Decoder().decode(signature);

export type AttestationRecord = Readonly<{
  address: Address;
  programId: Address;
  agent: Address;
  operator: Address;
  actionType: ActionTypeName;
  privacyMode: boolean;
  /** The action hash, or in privacy mode the salted commitment. */
  storedHash: string;
  /** The agent's Ed25519 signature of the attest message, base58. */
  agentSignature: string;
  slot: number;
  /** Unix seconds, from the ledger's clock. */
  timestamp: number;
  credential: Address;
  schema: Address;
}>;

export function toAttestationRecord(
  address: Address,
  programId: Address,
  account: AttestationAccount,
): AttestationRecord {
  return {
    address,
    programId,
    agent: account.signer,
    operator: account.operator,
    actionType: getActionTypeName(account.actionType),
    privacyMode: account.privacyMode,
    storedHash: bytesToHex(account.storedHash),
    agentSignature: signatureToBase58(account.agentSignature),
    slot: Number(account.slot),
    timestamp: Number(account.timestamp),
    credential: account.credential,
    schema: account.schema,
  };
}

export type BatchLeafRecord = Readonly<{
  actionType: ActionTypeName;
  privacyMode: boolean;
  storedHash: string;
  leafHash: string;
}>;

export type BatchRecord = Readonly<{
  address: Address;
  programId: Address;
  agent: Address;
  operator: Address;
  merkleRoot: string;
  itemCount: number;
  /** The action types the batch's items may use. */
  actionTypes: ActionTypeName[];
  agentSignature: string;
  slot: number;
  timestamp: number;
  leavesPublished: number;
  /** Every leaf is published, so the program has checked them against the signed root. */
  isComplete: boolean;
  /**
   * The published leaves, read from the batch's `publish_batch_leaves` transactions where they
   * were asked for (`findBatch`); absent where only the account was read (`verifyReceipt`).
   */
  leaves?: BatchLeafRecord[];
  credential: Address;
  schema: Address;
}>;

export function toBatchRecord(
  address: Address,
  programId: Address,
  account: BatchAccount,
  leaves?: readonly LeafData[],
): BatchRecord {
  return {
    address,
    programId,
    agent: account.signer,
    operator: account.operator,
    merkleRoot: bytesToHex(account.merkleRoot),
    itemCount: account.itemCount,
    actionTypes: actionTypesFromMask(account.actionTypes).map(getActionTypeName),
    agentSignature: signatureToBase58(account.agentSignature),
    slot: Number(account.slot),
    timestamp: Number(account.timestamp),
    leavesPublished: account.leavesPublished,
    isComplete: account.isComplete,
    ...(leaves === undefined
      ? {}
      : {
          leaves: leaves.map((leaf) => ({
            actionType: getActionTypeName(leaf.actionType),
            privacyMode: leaf.privacyMode,
            storedHash: bytesToHex(leaf.storedHash),
            leafHash: bytesToHex(computeLeafHash(leaf)),
          })),
        }),
    credential: account.credential,
    schema: account.schema,
  };
}

export type AgentRecord = Readonly<{
  /** The agent account (PDA). */
  address: Address;
  agent: Address;
  operator: Address;
  status: AgentStatusName;
  allowedActionTypes: ActionTypeName[];
  registeredAt: number;
  registeredSlot: number;
  updatedAt: number;
  attestationCount: number;
  batchCount: number;
  batchItemCount: number;
  /** Unix seconds of the last attestation or batch; null when the agent never attested. */
  lastAttestedAt: number | null;
}>;

export function toAgentRecord(address: Address, account: AgentAccount): AgentRecord {
  return {
    address,
    agent: account.agent,
    operator: account.operator,
    status: getAgentStatusName(account.status),
    allowedActionTypes: actionTypesFromMask(account.allowedActionTypes).map(getActionTypeName),
    registeredAt: Number(account.registeredAt),
    registeredSlot: Number(account.registeredSlot),
    updatedAt: Number(account.updatedAt),
    attestationCount: Number(account.attestationCount),
    batchCount: Number(account.batchCount),
    batchItemCount: Number(account.batchItemCount),
    lastAttestedAt: account.lastAttestedAt === 0n ? null : Number(account.lastAttestedAt),
  };
}
