/**
 * Checks one candidate against the ledger: the receipt it stands for is rebuilt from the ledger
 * account and the caller's own inputs (hash, salt, proof), then the SDK's `verifyReceipt` checks the
 * stored hash (and commitment), the agent's Ed25519 signature over the exact message the program
 * checked, the Merkle inclusion proof against the signed on-chain root and that the batch is
 * complete, the account's address and fields, and the recording transaction.
 */
import {
  actionTypesFromMask,
  buildInclusionProof,
  bytesToHex,
  computeLeafHash,
  getActionTypeName,
  type ActionTypeName,
} from "@abas/program-client";
import {
  getAddressExplorerUrl,
  getTransactionExplorerUrl,
  verifyReceipt,
  type AttestationReceipt,
  type BatchItemReceipt,
  type ReceiptChecks,
} from "@abas/sdk";
import { getBase58Decoder, type Signature } from "@solana/kit";

import type { ToolContext } from "../tool-context.js";
import { ledgerFailure } from "../tool-failure.js";
import type { Candidate } from "./find-candidates.js";
import type { ResolvedAction } from "./resolve-action.js";

export type ProofSource = "input" | "ledger" | "unavailable";

export type CheckedAttestation = Readonly<{
  verified: boolean;
  kind: "single" | "batch-item";
  agent: string;
  operator: string;
  actionType: ActionTypeName;
  privacyMode: boolean;
  slot: number;
  timestamp: number;
  recordedAt: string;
  /** The attestation account, or the batch account for a batch item. */
  accountAddress: string;
  accountExplorerUrl: string;
  batch: Readonly<{
    index: number;
    itemCount: number;
    leavesPublished: number;
    complete: boolean;
    merkleRoot: string;
    leafHash: string;
    proof: string[];
    proofSource: ProofSource;
  }> | null;
  txSignature: string | null;
  explorerUrl: string | null;
  agentSignature: string;
  checks: Record<string, { ok: boolean; reason?: string }>;
}>;

const base58 = (bytes: Uint8Array): string => getBase58Decoder().decode(bytes);

/** The transaction that created the account: the oldest successful one in the account's slot. */
async function findRecordingTransaction(
  candidate: Candidate,
  context: ToolContext,
): Promise<Signature | undefined> {
  const slot = Number(candidate.account.slot);
  const signatures = await context.ledger.getSignatures(candidate.address);
  return signatures.filter((entry) => entry.succeeded && entry.slot === slot).at(-1)?.signature;
}

function batchProof(
  candidate: Extract<Candidate, { kind: "batch-item" }>,
  proof: readonly Uint8Array[] | undefined,
): { proof: string[]; proofSource: ProofSource } {
  if (proof !== undefined) return { proof: proof.map(bytesToHex), proofSource: "input" };
  const { account, leaves, index } = candidate;
  if (!account.isComplete) return { proof: [], proofSource: "unavailable" };
  // Every leaf is on the ledger (and the program checked them against the root): rebuild the proof.
  const leafHashes = leaves.map(computeLeafHash);
  return { proof: buildInclusionProof(leafHashes, index).map(bytesToHex), proofSource: "ledger" };
}

export async function checkCandidate(
  candidate: Candidate,
  action: ResolvedAction,
  proof: readonly Uint8Array[] | undefined,
  context: ToolContext,
): Promise<CheckedAttestation> {
  const { config } = context;
  const { account } = candidate;
  const txSignature = candidate.txSignature ?? (await findRecordingTransaction(candidate, context));
  const explorerUrl =
    txSignature === undefined ? null : getTransactionExplorerUrl(txSignature, config.rpcUrl);
  const common = {
    programId: config.programId,
    agent: account.signer,
    operator: account.operator,
    actionHash: bytesToHex(action.actionHash),
    storedHash: bytesToHex(action.storedHash),
    agentSignature: base58(account.agentSignature),
    txSignature: txSignature ?? "",
    explorerUrl: explorerUrl ?? "",
    slot: Number(account.slot),
    timestamp: Number(account.timestamp),
  };

  let receipt: AttestationReceipt | BatchItemReceipt;
  let batch: CheckedAttestation["batch"] = null;
  let actionType: ActionTypeName;
  let privacyMode: boolean;
  if (candidate.kind === "single") {
    actionType = getActionTypeName(candidate.account.actionType);
    privacyMode = candidate.account.privacyMode;
    receipt = {
      ...common,
      attestationAddress: candidate.address,
      actionType,
      privacyMode,
      ...(privacyMode && action.salt ? { salt: bytesToHex(action.salt) } : {}),
    };
  } else {
    const leaf = candidate.leaves[candidate.index]!;
    actionType = getActionTypeName(leaf.actionType);
    privacyMode = leaf.privacyMode;
    const leafHash = bytesToHex(
      computeLeafHash({ actionType: leaf.actionType, privacyMode, storedHash: action.storedHash }),
    );
    const { proof: proofHex, proofSource } = batchProof(candidate, proof);
    const merkleRoot = bytesToHex(candidate.account.merkleRoot);
    receipt = {
      ...common,
      index: candidate.index,
      itemCount: candidate.account.itemCount,
      actionType,
      privacyMode,
      ...(privacyMode && action.salt ? { salt: bytesToHex(action.salt) } : {}),
      leafHash,
      proof: proofHex,
      merkleRoot,
      batchActionTypes: actionTypesFromMask(candidate.account.actionTypes).map(getActionTypeName),
      batchAddress: candidate.address,
    };
    batch = {
      index: candidate.index,
      itemCount: candidate.account.itemCount,
      leavesPublished: candidate.account.leavesPublished,
      complete: candidate.account.isComplete,
      merkleRoot,
      leafHash,
      proof: proofHex,
      proofSource,
    };
  }

  let checks: ReceiptChecks;
  if (txSignature === undefined) {
    checks = {
      transaction: {
        ok: false,
        reason: `no successful transaction in slot ${common.slot} wrote this account`,
      },
    };
  } else {
    try {
      ({ checks } = await verifyReceipt(receipt, { rpcUrl: config.rpcUrl }));
    } catch (error) {
      throw ledgerFailure(config, "getAccountInfo/getTransaction", error);
    }
  }
  const plainChecks = Object.fromEntries(
    Object.entries(checks).map(([name, check]) => [
      name,
      check.reason === undefined ? { ok: check.ok } : { ok: check.ok, reason: check.reason },
    ]),
  );
  return {
    verified: Object.values(checks).every((check) => check.ok),
    kind: candidate.kind,
    agent: account.signer,
    operator: account.operator,
    actionType,
    privacyMode,
    slot: common.slot,
    timestamp: common.timestamp,
    recordedAt: new Date(common.timestamp * 1000).toISOString(),
    accountAddress: candidate.address,
    accountExplorerUrl: getAddressExplorerUrl(candidate.address, config.rpcUrl),
    batch,
    txSignature: txSignature ?? null,
    explorerUrl,
    agentSignature: common.agentSignature,
    checks: plainChecks,
  };
}
