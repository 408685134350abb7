/**
 * What the client returns for each attested action. Receipts are plain JSON (strings, numbers,
 * booleans), so they can be stored as they are and checked later with `verifyReceipt`:
 *
 * - hashes, the salt and the Merkle proof are lowercase hex;
 * - `agentSignature` is base58, like every Solana signature (Explorer, wallets and `txSignature`);
 * - `slot` and `timestamp` (unix seconds) are the ledger's own, read back from the account the
 *   program wrote, never the client's clock.
 *
 * A privacy-mode receipt carries the `salt`: it is the only way to link the stored commitment to
 * the action, so keep it as private as the payload.
 */
import type { ActionTypeName } from "@abas/program-client";

/** The receipt of one action attested on its own (`attest`). */
export type AttestationReceipt = {
  txSignature: string;
  explorerUrl: string;
  /** The BehaviorAttestation account: PDA `["attestation", agent, storedHash]`. */
  attestationAddress: string;
  programId: string;
  agent: string;
  operator: string;
  actionType: ActionTypeName;
  privacyMode: boolean;
  actionHash: string;
  /** `actionHash`, or in privacy mode `H("abas:commit:v1" ‖ salt ‖ actionHash)`. */
  storedHash: string;
  /** Privacy mode only. */
  salt?: string;
  agentSignature: string;
  slot: number;
  timestamp: number;
};

/** The receipt of one item of a batch (`batchAttest`): the item, and its proof of inclusion in the signed root. */
export type BatchItemReceipt = {
  /** Position of the item in the batch, from 0. */
  index: number;
  itemCount: number;
  actionHash: string;
  actionType: ActionTypeName;
  privacyMode: boolean;
  storedHash: string;
  salt?: string;
  /** `H(0x00 ‖ actionType ‖ privacyMode ‖ storedHash)`. */
  leafHash: string;
  /** Sibling hashes from the leaf up to the root. */
  proof: string[];
  merkleRoot: string;
  /** The action types the agent allowed in this batch (part of the signed batch message). */
  batchActionTypes: ActionTypeName[];
  /** The batch attestation account: PDA `["batch", agent, merkleRoot]`. */
  batchAddress: string;
  programId: string;
  agent: string;
  operator: string;
  /** The agent's signature of the batch message, base58. */
  agentSignature: string;
  /** The transaction that recorded the root. */
  txSignature: string;
  explorerUrl: string;
  slot: number;
  timestamp: number;
};

export type BatchAttestationResult = {
  /** The transaction that recorded the Merkle root. */
  txSignature: string;
  explorerUrl: string;
  batchAddress: string;
  merkleRoot: string;
  itemCount: number;
  /** The transactions that published the leaves, in order. */
  leafTransactions: string[];
  receipts: BatchItemReceipt[];
};

export type Receipt = AttestationReceipt | BatchItemReceipt;

export function isBatchItemReceipt(receipt: Receipt): receipt is BatchItemReceipt {
  return "batchAddress" in receipt;
}
