/**
 * The verification status of an indexed attestation, computed from the ledger over RPC by the SDK's
 * own `verifyReceipt`: the index only says where to look. From the indexed record (and, for a batch
 * item, the batch account and the leaves its transactions published, read by the SDK's
 * `fetchBatchLeaves`) this rebuilds the receipt the agent's operator was given, then lets the SDK
 * check it offline and against the ledger:
 *
 * - the account exists at the address derived from program, agent and stored hash (or root), is
 *   owned by the program and decodes; its fields are the receipt's;
 * - the agent's Ed25519 signature verifies over the exact message the program checked;
 * - batch items: the Merkle proof links the item to the root on the ledger, and the batch is
 *   complete (the program checked that its published leaves reproduce that root);
 * - the transaction exists, succeeded, wrote that account, in the recorded slot.
 *
 * In privacy mode the ledger stores a salted commitment; opening it needs the action hash and the
 * salt, which only the receipt holder has. Without them that one check is reported as not
 * checked, and the rest still runs.
 */
import type { ApiAttestation as IndexedAttestation } from "@abas/api-contract";
import { ABAS_RUNTIME__RPC_REQUEST_FAILED, isAbasError } from "@abas/errors";
import {
  actionTypesFromMask,
  bytesToHex,
  buildInclusionProof,
  computeLeafHash,
  getActionTypeFromName,
  getActionTypeName,
  hexToBytes,
  type BatchAccount,
} from "@abas/program-client";
import {
  fetchBatchLeaves,
  getTransactionExplorerUrl,
  verifyReceipt,
  type AttestationReceipt,
  type BatchItemReceipt,
  type LedgerBatch,
  type ReceiptCheckName,
  type ReceiptChecks,
} from "@abas/sdk";
import { address, createSolanaRpc } from "@solana/kit";

export interface LedgerContext {
  readonly rpcUrl: string;
  readonly programId: string;
  /** How long the ledger may take to answer a verification. */
  readonly timeoutMs?: number;
}

/** What only the receipt holder knows: the action hash, and in privacy mode the salt. */
export interface ReceiptOpening {
  readonly actionHash: string;
  readonly salt?: string;
  /** A batch item's proof as the receipt carries it; computed from the ledger's leaves when absent. */
  readonly proof?: readonly string[];
}

export type CheckOutcome = "passed" | "failed" | "not-checked";

export interface DisplayedCheck {
  readonly name: ReceiptCheckName;
  readonly label: string;
  readonly outcome: CheckOutcome;
  readonly detail?: string;
}

export interface LedgerVerification {
  /** verified: every check that could run passed; failed: one did not; unavailable: no answer. */
  readonly status: "verified" | "failed" | "unavailable";
  readonly checks: readonly DisplayedCheck[];
  /** Why the ledger could not be asked (status "unavailable"). */
  readonly problem?: string;
  /** Where a batch item's proof came from. */
  readonly proofSource?: "receipt" | "ledger-leaves";
  /** Unix ms of the check. */
  readonly checkedAt: number;
}

const CHECK_LABELS: Record<ReceiptCheckName, string> = {
  format: "The receipt is well formed",
  storedHash: "The stored hash is the action hash (or, in privacy mode, its salted commitment)",
  agentSignature: "The agent's Ed25519 signature verifies over the exact message the program checked",
  merkleProof: "The Merkle proof links this item to the signed root",
  address: "The account address is the program's address for this agent and hash",
  account: "The ledger holds the account there, owned by the ABAS program",
  accountFields: "The account's fields match: hash, type, mode, agent, operator, signature, slot, time",
  batchLeaf: "The batch is complete: the leaves it published on the ledger reproduce the signed root",
  transaction: "The transaction exists, succeeded and wrote the account in the recorded slot",
};

const CHECK_ORDER: readonly ReceiptCheckName[] = [
  "account",
  "address",
  "accountFields",
  "agentSignature",
  "merkleProof",
  "batchLeaf",
  "storedHash",
  "transaction",
  "format",
];

const ZERO_HASH = "00".repeat(32);
const PRIVACY_NOT_OPENED =
  "privacy mode: opening the commitment needs the action hash and the salt, which only the receipt holder has (use the verify page)";

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the ledger did not answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

interface ReceiptParts {
  readonly actionHash: string;
  readonly salt: string | undefined;
  readonly opened: boolean;
}

function receiptParts(record: IndexedAttestation, opening: ReceiptOpening | undefined): ReceiptParts {
  if (opening !== undefined) return { actionHash: opening.actionHash, salt: opening.salt, opened: true };
  if (!record.privacy) return { actionHash: record.storedHash, salt: undefined, opened: true };
  // The SDK's receipt format needs a hash and a salt in privacy mode; these stand-ins only reach
  // the one check (storedHash) that is then reported as not checked.
  return { actionHash: ZERO_HASH, salt: ZERO_HASH, opened: false };
}

function singleReceipt(
  record: IndexedAttestation,
  parts: ReceiptParts,
  context: LedgerContext,
): AttestationReceipt {
  return {
    txSignature: record.txSignature,
    explorerUrl: getTransactionExplorerUrl(record.txSignature, context.rpcUrl),
    attestationAddress: record.id,
    programId: context.programId,
    agent: record.agent,
    operator: record.operator,
    actionType: record.actionType,
    privacyMode: record.privacy,
    actionHash: parts.actionHash,
    storedHash: record.storedHash,
    ...(record.privacy ? { salt: parts.salt } : {}),
    agentSignature: record.agentSignature,
    slot: record.slot,
    timestamp: record.timestamp,
  };
}

function ledgerProof({ account, leaves }: LedgerBatch, index: number): string[] {
  if (!account.isComplete || index >= leaves.length) return [];
  return buildInclusionProof(leaves.map(computeLeafHash), index).map(bytesToHex);
}

function batchItemReceipt(
  record: IndexedAttestation & { batch: NonNullable<IndexedAttestation["batch"]> },
  account: BatchAccount,
  parts: ReceiptParts,
  proof: readonly string[],
  context: LedgerContext,
): BatchItemReceipt {
  const leafHash = computeLeafHash({
    actionType: getActionTypeFromName(record.actionType)!,
    privacyMode: record.privacy,
    storedHash: hexToBytes(record.storedHash, 32),
  });
  return {
    index: record.batch.index,
    itemCount: account.itemCount,
    actionHash: parts.actionHash,
    actionType: record.actionType,
    privacyMode: record.privacy,
    storedHash: record.storedHash,
    ...(record.privacy ? { salt: parts.salt } : {}),
    leafHash: bytesToHex(leafHash),
    proof: [...proof],
    merkleRoot: record.batch.merkleRoot,
    batchActionTypes: actionTypesFromMask(account.actionTypes).map(getActionTypeName),
    batchAddress: record.batch.address,
    programId: context.programId,
    agent: record.agent,
    operator: record.operator,
    agentSignature: record.agentSignature,
    txSignature: record.txSignature,
    explorerUrl: getTransactionExplorerUrl(record.txSignature, context.rpcUrl),
    slot: record.slot,
    timestamp: record.timestamp,
  };
}

function displayChecks(checks: ReceiptChecks, opened: boolean): DisplayedCheck[] {
  return CHECK_ORDER.flatMap((name): DisplayedCheck[] => {
    const check = checks[name];
    if (check === undefined) return [];
    if (name === "storedHash" && !opened) {
      return [{ name, label: CHECK_LABELS[name], outcome: "not-checked", detail: PRIVACY_NOT_OPENED }];
    }
    return [
      {
        name,
        label: CHECK_LABELS[name],
        outcome: check.ok ? "passed" : "failed",
        ...(check.reason === undefined ? {} : { detail: check.reason }),
      },
    ];
  });
}

function statusOf(checks: readonly DisplayedCheck[]): LedgerVerification["status"] {
  return checks.every((check) => check.outcome !== "failed") ? "verified" : "failed";
}

function accountFailure(problem: string): Omit<LedgerVerification, "checkedAt"> {
  return {
    status: "failed",
    checks: [{ name: "account", label: CHECK_LABELS.account, outcome: "failed", detail: problem }],
  };
}

async function verifyOnLedger(
  record: IndexedAttestation,
  opening: ReceiptOpening | undefined,
  context: LedgerContext,
): Promise<Omit<LedgerVerification, "checkedAt">> {
  const parts = receiptParts(record, opening);
  if (record.batch === null) {
    const { checks } = await verifyReceipt(singleReceipt(record, parts, context), { rpcUrl: context.rpcUrl });
    const displayed = displayChecks(checks, parts.opened);
    return { status: statusOf(displayed), checks: displayed };
  }

  const batchAddress = address(record.batch.address);
  let batch: LedgerBatch | null;
  try {
    batch = await fetchBatchLeaves(createSolanaRpc(context.rpcUrl), {
      programId: address(context.programId),
      batchAddress,
      commitment: "confirmed",
    });
  } catch (error) {
    // A node that does not answer is "unavailable"; an account or history that is not a batch's fails.
    if (!isAbasError(error) || isAbasError(error, ABAS_RUNTIME__RPC_REQUEST_FAILED)) throw error;
    return accountFailure(`the batch at ${batchAddress} does not check out: ${error.message}`);
  }
  if (batch === null) return accountFailure(`the ledger has no batch of the program at ${batchAddress}`);
  const proofSource = opening?.proof === undefined ? "ledger-leaves" : "receipt";
  const proof = opening?.proof ?? ledgerProof(batch, record.batch.index);
  const receipt = batchItemReceipt({ ...record, batch: record.batch }, batch.account, parts, proof, context);
  const { checks } = await verifyReceipt(receipt, { rpcUrl: context.rpcUrl });
  const displayed = displayChecks(checks, parts.opened);
  return { status: statusOf(displayed), checks: displayed, proofSource };
}

/** Never throws: a ledger that does not answer is the status "unavailable". */
export async function verifyIndexedAttestation(
  record: IndexedAttestation,
  context: LedgerContext,
  opening?: ReceiptOpening,
): Promise<LedgerVerification> {
  const checkedAt = Date.now();
  try {
    const result = await withTimeout(verifyOnLedger(record, opening, context), context.timeoutMs ?? 10_000);
    return { ...result, checkedAt };
  } catch (error) {
    return { status: "unavailable", checks: [], problem: (error as Error).message, checkedAt };
  }
}
