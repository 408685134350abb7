/**
 * Checks one ledger attestation: the receipt it stands for is rebuilt from the ledger account and
 * what the caller knows (action hash, salt, proof), then the SDK's own `verifyReceipt` checks run
 * against the ledger. A batch item without the caller's proof gets one built from the leaves the
 * batch published.
 */
import {
  actionTypesFromMask,
  bytesToHex,
  computeLeafHash,
  getActionTypeName,
  hexToBytes,
} from "@abas/program-client";

import { getTransactionExplorerUrl } from "../explorer-url.js";
import type { AttestationReceipt, BatchItemReceipt, Receipt } from "../receipts.js";
import { signatureToBase58 } from "../records.js";
import { verifyReceiptOnLedger, type ReceiptChecks } from "../verify-receipt.js";
import { proofFromLedgerLeaves } from "./batch-proof.js";
import type { LedgerAttestation } from "./ledger-attestations.js";
import type { LookupContext } from "./lookup-context.js";
import { findRecordingTransaction } from "./recording-transaction.js";
import type { ProofSource, VerifiedAttestation } from "./verified-attestation.js";

/** What only the receipt holder may know. */
export type ReceiptOpening = Readonly<{
  actionHash?: string;
  salt?: string;
  /** A batch item's proof as the receipt carries it. */
  proof?: readonly string[];
}>;

export type Candidate = Readonly<{
  ledger: LedgerAttestation;
  /** For a batch: which item. */
  batchIndex?: number;
  /** The recording transaction, when the caller or the index named it. */
  txSignature?: string;
}>;

// Stand-ins for a privacy-mode receipt nobody opened: they reach only the `storedHash` check, which
// is then left out.
const ZERO_HASH = "00".repeat(32);

function opening(privacyMode: boolean, storedHash: string, given: ReceiptOpening) {
  if (!privacyMode) return { actionHash: given.actionHash ?? storedHash, salt: undefined, opened: true };
  if (given.actionHash !== undefined && given.salt !== undefined) {
    return { actionHash: given.actionHash, salt: given.salt, opened: true };
  }
  return { actionHash: ZERO_HASH, salt: ZERO_HASH, opened: false };
}

type Rebuilt = Readonly<{
  receipt: Receipt | null;
  fields: Omit<VerifiedAttestation, "verified" | "checks" | "receipt" | "txSignature">;
}>;

function rebuild(
  context: LookupContext,
  candidate: Candidate,
  given: ReceiptOpening,
  txSignature: string,
): Rebuilt {
  const { ledger } = candidate;
  const { account } = ledger;
  const common = {
    programId: context.programId,
    agent: account.signer,
    operator: account.operator,
    agentSignature: signatureToBase58(account.agentSignature),
    txSignature,
    explorerUrl: getTransactionExplorerUrl(txSignature, context.rpcUrl),
    slot: Number(account.slot),
    timestamp: Number(account.timestamp),
  };
  const shared = {
    address: ledger.address,
    agent: common.agent,
    operator: common.operator,
    slot: common.slot,
    timestamp: common.timestamp,
    agentSignature: common.agentSignature,
  };
  if (ledger.kind === "attestation") {
    const storedHash = bytesToHex(ledger.account.storedHash);
    const { privacyMode } = ledger.account;
    const parts = opening(privacyMode, storedHash, given);
    const actionType = getActionTypeName(ledger.account.actionType);
    const receipt: AttestationReceipt = {
      ...common,
      attestationAddress: ledger.address,
      actionType,
      privacyMode,
      actionHash: parts.actionHash,
      storedHash,
      ...(privacyMode ? { salt: parts.salt } : {}),
    };
    return {
      receipt,
      fields: {
        ...shared,
        kind: "attestation",
        actionType,
        privacyMode,
        storedHash,
        actionHash: parts.opened ? parts.actionHash : null,
        commitmentOpened: parts.opened,
        batch: null,
      },
    };
  }
  const index = candidate.batchIndex ?? 0;
  const batchAccount = ledger.account;
  const leaf = ledger.leaves[index];
  const merkleRoot = bytesToHex(batchAccount.merkleRoot);
  const ledgerProof = proofFromLedgerLeaves(ledger.leaves, batchAccount.itemCount, index);
  const proofSource: ProofSource =
    given.proof !== undefined ? "query" : ledgerProof === null ? "unavailable" : "ledger-leaves";
  const proof = given.proof ?? ledgerProof ?? [];
  const batchFields = {
    index,
    itemCount: batchAccount.itemCount,
    leavesPublished: batchAccount.leavesPublished,
    complete: batchAccount.isComplete,
    merkleRoot,
    proof: [...proof],
    proofSource,
  };
  if (leaf === undefined) {
    return {
      receipt: null,
      fields: {
        ...shared,
        kind: "batch-item",
        actionType: null,
        privacyMode: false,
        storedHash: null,
        actionHash: given.actionHash ?? null,
        commitmentOpened: false,
        batch: { ...batchFields, leafHash: null },
      },
    };
  }
  const storedHash = bytesToHex(leaf.storedHash);
  const parts = opening(leaf.privacyMode, storedHash, given);
  const actionType = getActionTypeName(leaf.actionType);
  const leafHash = bytesToHex(computeLeafHash({ ...leaf, storedHash: hexToBytes(storedHash, 32) }));
  const receipt: BatchItemReceipt = {
    ...common,
    index,
    itemCount: batchAccount.itemCount,
    actionHash: parts.actionHash,
    actionType,
    privacyMode: leaf.privacyMode,
    storedHash,
    ...(leaf.privacyMode ? { salt: parts.salt } : {}),
    leafHash,
    proof: [...proof],
    merkleRoot,
    batchActionTypes: actionTypesFromMask(batchAccount.actionTypes).map(getActionTypeName),
    batchAddress: ledger.address,
  };
  return {
    receipt,
    fields: {
      ...shared,
      kind: "batch-item",
      actionType,
      privacyMode: leaf.privacyMode,
      storedHash,
      actionHash: parts.opened ? parts.actionHash : null,
      commitmentOpened: parts.opened,
      batch: { ...batchFields, leafHash },
    },
  };
}

const fail = (reason: string) => ({ ok: false, reason });

export async function verifyCandidate(
  context: LookupContext,
  candidate: Candidate,
  given: ReceiptOpening,
): Promise<VerifiedAttestation> {
  const slot = Number(candidate.ledger.account.slot);
  const txSignature =
    candidate.txSignature ?? (await findRecordingTransaction(context, candidate.ledger.address, slot));
  const { receipt, fields } = rebuild(context, candidate, given, txSignature ?? "");
  let checks: ReceiptChecks;
  if (receipt === null) {
    const { batch } = fields;
    checks = {
      batchLeaf: fail(
        `item ${batch!.index + 1} is not published on the ledger yet (${batch!.leavesPublished} of ${batch!.itemCount} leaves)`,
      ),
    };
  } else if (txSignature === undefined) {
    checks = { transaction: fail(`no successful transaction in slot ${slot} wrote this account`) };
  } else {
    ({ checks } = await verifyReceiptOnLedger(context.rpc, context.commitment, context.programId, receipt));
    if (!fields.commitmentOpened) delete checks.storedHash;
  }
  return {
    ...fields,
    verified: Object.values(checks).every((check) => check.ok),
    txSignature: txSignature ?? null,
    checks,
    receipt: txSignature === undefined ? null : receipt,
  };
}
