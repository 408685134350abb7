import type { ActionTypeName } from "@abas/program-client";

import type { Receipt } from "../receipts.js";
import type { ReceiptChecks } from "../verify-receipt.js";

/** Where a batch item's Merkle proof came from: the caller, the ledger's leaves, or nowhere yet. */
export type ProofSource = "query" | "ledger-leaves" | "unavailable";

export type VerifiedBatchItem = Readonly<{
  index: number;
  itemCount: number;
  leavesPublished: number;
  /** Every leaf is published, so the program checked them against the signed root. */
  complete: boolean;
  merkleRoot: string;
  leafHash: string | null;
  proof: readonly string[];
  proofSource: ProofSource;
}>;

/** One attestation read from the ledger and checked there with `verifyReceipt`. */
export type VerifiedAttestation = Readonly<{
  /** Every check that ran passed. */
  verified: boolean;
  kind: "attestation" | "batch-item";
  /** The attestation account, or for a batch item the batch account. */
  address: string;
  agent: string;
  operator: string;
  /** Null only for a batch item whose leaf is not published yet. */
  actionType: ActionTypeName | null;
  privacyMode: boolean;
  /** The action hash, or in privacy mode its commitment, as the ledger stores it. */
  storedHash: string | null;
  /** The action hash the stored hash was checked against; null when none was given in privacy mode. */
  actionHash: string | null;
  /**
   * False in privacy mode without the action hash and salt: the commitment could not be opened, so
   * the `storedHash` check did not run (every other check did).
   */
  commitmentOpened: boolean;
  slot: number;
  /** Unix seconds, from the ledger's clock. */
  timestamp: number;
  /** The agent's Ed25519 signature (base58), as stored on the ledger. */
  agentSignature: string;
  /** The recording transaction (for a batch item, the batch commit); null when none was found. */
  txSignature: string | null;
  batch: VerifiedBatchItem | null;
  checks: ReceiptChecks;
  /** The receipt rebuilt from the ledger and the caller's opening, as `verifyReceipt` checked it. */
  receipt: Receipt | null;
}>;
