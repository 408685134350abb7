import type { BatchRow } from "@abas/db";
import { bytesToHex, decodeBatchAccount, getActionTypeName, type BatchAccount } from "@abas/program-client";
import { getBase58Decoder, type Address } from "@solana/kit";

import { verifyBatchItems } from "../batch-item-verification.js";
import { agentAccountOf, recordAccountOf, type ProgramInstruction } from "../transaction-decoder.js";
import { upsertAgentState } from "./agent-state.js";
import { requireAccountData, type ApplyContext } from "./apply-context.js";

// 16 columns a row: well inside every dialect's limit on bound parameters.
const ITEM_ROWS_PER_INSERT = 100;

function decodeBatch(context: ApplyContext, batchAddress: Address | undefined): BatchAccount | undefined {
  const data = requireAccountData(context, batchAddress);
  try {
    return decodeBatchAccount(data);
  } catch (error) {
    context.logger.error(
      { batchAddress, signature: context.transaction.signature, err: error },
      "batch account does not decode; skipped",
    );
    return undefined;
  }
}

/** `attest_batch`: the `batches` row (its commit transaction is this one) and the agent's new counters. */
export async function applyAttestBatch(
  context: ApplyContext,
  instruction: ProgramInstruction,
): Promise<void> {
  const batchAddress = recordAccountOf(instruction);
  const batch = decodeBatch(context, batchAddress);
  if (batch === undefined) return;
  await context.db
    .insertInto("batches")
    .values({
      address: batchAddress!,
      agent: batch.signer,
      operator: batch.operator,
      merkle_root: bytesToHex(batch.merkleRoot),
      item_count: batch.itemCount,
      action_types: batch.actionTypes,
      agent_signature: getBase58Decoder().decode(batch.agentSignature),
      tx_signature: context.transaction.signature,
      slot: Number(batch.slot),
      timestamp: Number(batch.timestamp),
      leaves_published: 0,
      complete: 0,
      items_indexed: 0,
    })
    .onConflict((conflict) => conflict.column("address").doNothing())
    .execute();
  // The snapshot may already show leaves published by later transactions: record them now.
  await syncBatchLeaves(context, batchAddress!, batch);
  await upsertAgentState(context, agentAccountOf(instruction));
}

/** `publish_batch_leaves`: how far the leaves are published, and the items once all are. */
export async function applyPublishBatchLeaves(
  context: ApplyContext,
  instruction: ProgramInstruction,
): Promise<void> {
  const batchAddress = recordAccountOf(instruction);
  const batch = decodeBatch(context, batchAddress);
  if (batch === undefined) return;
  await syncBatchLeaves(context, batchAddress!, batch);
}

async function syncBatchLeaves(
  context: ApplyContext,
  batchAddress: Address,
  batch: BatchAccount,
): Promise<void> {
  const row = await context.db
    .selectFrom("batches")
    .selectAll()
    .where("address", "=", batchAddress)
    .executeTakeFirst();
  if (row === undefined) {
    // Transactions are applied in ledger order, so the commit always comes first.
    context.logger.error(
      { batchAddress, signature: context.transaction.signature },
      "leaves of a batch whose commit is not indexed; skipped",
    );
    return;
  }
  const leavesPublished = Math.max(row.leaves_published, batch.leavesPublished);
  const complete = row.complete === 1 || batch.isComplete;
  let itemsIndexed = row.items_indexed === 1;
  if (complete && !itemsIndexed) itemsIndexed = await insertBatchItems(context, row, batch);
  if (
    leavesPublished !== row.leaves_published ||
    complete !== (row.complete === 1) ||
    itemsIndexed !== (row.items_indexed === 1)
  ) {
    await context.db
      .updateTable("batches")
      .set({
        leaves_published: leavesPublished,
        complete: complete ? 1 : 0,
        items_indexed: itemsIndexed ? 1 : 0,
      })
      .where("address", "=", batchAddress)
      .execute();
  }
}

/** Inserts the items of a complete batch once its leaves recompute its root; false when they do not. */
async function insertBatchItems(context: ApplyContext, row: BatchRow, batch: BatchAccount): Promise<boolean> {
  const verification = verifyBatchItems(batch);
  if (!verification.verified) {
    context.logger.error(
      { batchAddress: row.address, reason: verification.reason },
      "batch items not indexed: the published leaves do not verify",
    );
    return false;
  }
  const items = verification.leaves.map((leaf, index) => ({
    id: `${row.address}:${index}`,
    kind: "batch" as const,
    agent: row.agent,
    operator: row.operator,
    action_type: getActionTypeName(leaf.actionType),
    privacy: leaf.privacyMode ? 1 : 0,
    stored_hash: bytesToHex(leaf.storedHash),
    agent_signature: row.agent_signature,
    tx_signature: row.tx_signature,
    slot: row.slot,
    timestamp: row.timestamp,
    batch_address: row.address,
    batch_index: index,
    merkle_root: row.merkle_root,
    indexed_at: context.indexedAt,
  }));
  for (let start = 0; start < items.length; start += ITEM_ROWS_PER_INSERT) {
    await context.db
      .insertInto("attestations")
      .values(items.slice(start, start + ITEM_ROWS_PER_INSERT))
      .onConflict((conflict) => conflict.column("id").doNothing())
      .execute();
  }
  return true;
}
