import { ABAS_SDK__INVALID_ARGUMENT, AbasError } from "@abas/errors";
import { bytesToHex, computeBatchMerkleRoot, decodeBatchAccount, type LeafData } from "@abas/program-client";

import type { ClientContext } from "./client-context.js";
import { assertObject } from "./input-validation.js";
import { prepareKeypair, type KeypairSource } from "./keypair.js";
import { fetchLedgerAccount } from "./ledger-accounts.js";
import { parseReceipt, type ParsedBatchItemReceipt } from "./parse-receipt.js";
import { publishBatchLeaves } from "./publish-batch-leaves.js";
import type { BatchItemReceipt } from "./receipts.js";

export type CompleteBatchInput = Readonly<{
  operatorKeypair: KeypairSource;
  /** Every receipt of the batch, as `batchAttest` returned them (or its error carried them). */
  receipts: readonly BatchItemReceipt[];
}>;

export type CompleteBatchResult = Readonly<{
  batchAddress: string;
  itemCount: number;
  /** The transactions sent now; empty when the batch was already complete. */
  leafTransactions: string[];
}>;

function invalidReceipts(reason: string): AbasError {
  return new AbasError(ABAS_SDK__INVALID_ARGUMENT, { argument: "receipts", reason });
}

/** The batch's items in order, checked to be the whole batch of the client's agent. */
function batchItems(context: ClientContext, receipts: unknown): ParsedBatchItemReceipt[] {
  if (!Array.isArray(receipts) || receipts.length === 0)
    throw invalidReceipts("expected every receipt of the batch");
  const items = receipts.map((receipt, index) => {
    const parsed = parseReceipt(receipt);
    if (!parsed.ok) throw invalidReceipts(`receipt ${index}: ${parsed.problems.join("; ")}`);
    if (parsed.receipt.kind !== "batch-item") throw invalidReceipts(`receipt ${index} is not a batch item`);
    return parsed.receipt;
  });
  const [first] = items;
  if (items.some((item) => item.address !== first!.address || item.itemCount !== items.length)) {
    throw invalidReceipts("the receipts are not exactly the items of one batch");
  }
  if (first!.agent !== context.agent.address || first!.programId !== context.settings.programId) {
    throw invalidReceipts("the batch belongs to another agent or program than this client's");
  }
  const ordered = [...items].sort((a, b) => a.index - b.index);
  if (ordered.some((item, position) => item.index !== position))
    throw invalidReceipts("an item index is missing or repeated");
  return ordered;
}

/**
 * Publishes the leaves a batch still lacks, from the receipts: finishes a `batchAttest` whose leaf
 * transactions failed (`ABAS_RUNTIME__BATCH_LEAVES_NOT_PUBLISHED` carries the receipts).
 */
export async function completeBatch(
  context: ClientContext,
  input: CompleteBatchInput,
): Promise<CompleteBatchResult> {
  assertObject(input, "input");
  const operatorKeypair = prepareKeypair(input.operatorKeypair, "operatorKeypair");
  const items = batchItems(context, input.receipts);
  const leaves: LeafData[] = items.map(({ actionType, privacyMode, storedHash }) => ({
    actionType,
    privacyMode,
    storedHash,
  }));
  const merkleRoot = computeBatchMerkleRoot(leaves);
  if (bytesToHex(merkleRoot) !== bytesToHex(items[0]!.merkleRoot)) {
    throw invalidReceipts("the items do not recompute the batch's Merkle root");
  }
  const batchAddress = items[0]!.address;
  const account = await fetchLedgerAccount(context.rpc, batchAddress, context.settings.commitment);
  if (account === null || account.owner !== context.settings.programId) {
    throw invalidReceipts(`the ledger has no batch at ${batchAddress}`);
  }
  const batch = decodeBatchAccount(account.data);
  const operator = await operatorKeypair.getSigner();
  const leafTransactions = batch.isComplete
    ? []
    : await publishBatchLeaves(context, operator, { merkleRoot, leaves, fromIndex: batch.leavesPublished });
  return { batchAddress, itemCount: items.length, leafTransactions };
}
