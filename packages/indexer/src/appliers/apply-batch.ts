import type { BatchRow } from "@abas/db";
import {
  bytesToHex,
  decodeBatchAccount,
  decodePublishBatchLeavesInstructionData,
  encodeBase58,
  getActionTypeName,
  HASH_SIZE,
  hexToBytes,
  type ActionType,
  type BatchAccount,
  type LeafData,
} from "@abas/program-client";
import type { Address } from "@solana/kit";

import { verifyBatchItems } from "../batch-item-verification.js";
import { agentAccountOf, recordAccountOf, type ProgramInstruction } from "../transaction-decoder.js";
import { upsertAgentState } from "./agent-state.js";
import { requireAccountData, type ApplyContext } from "./apply-context.js";

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
      agent_signature: encodeBase58(batch.agentSignature),
      tx_signature: context.transaction.signature,
      slot: Number(batch.slot),
      timestamp: Number(batch.timestamp),
      leaves_published: 0,
      complete: 0,
      items_indexed: 0,
    })
    .onConflict((conflict) => conflict.column("address").doNothing())
    .execute();
  await upsertAgentState(context, agentAccountOf(instruction));
  // Its leaves may have come first (see applyPublishBatchLeaves).
  await completeWithStagedLeaves(context, await batchRow(context, batchAddress!));
}

/**
 * `publish_batch_leaves` of a successful transaction: the program accepted this chunk at its place
 * (`start_index` was the count of leaves published before it), so its leaves are the batch's at
 * those indexes, whatever order the index meets them in. A node lists the transactions of one slot
 * in its own order (by signature, on a cluster), not the order they ran: the chunk may come before
 * the batch's commit or an earlier chunk. Its leaves wait in `batch_leaves` until the batch has all
 * of them and its commit is indexed, then become its items.
 */
export async function applyPublishBatchLeaves(
  context: ApplyContext,
  instruction: ProgramInstruction,
): Promise<void> {
  const batchAddress = recordAccountOf(instruction);
  const chunk = decodePublishBatchLeavesInstructionData(instruction.data);
  const skip = (reason: string) =>
    context.logger.error({ batchAddress, signature: context.transaction.signature }, `${reason}; skipped`);
  if (batchAddress === undefined) return skip("a publish_batch_leaves instruction without its batch");
  if (chunk === undefined) return skip("a publish_batch_leaves chunk that does not decode");
  const row = await batchRow(context, batchAddress);
  if (row?.complete === 1) return skip("leaves of a batch that is already complete");
  await context.db
    .insertInto("batch_leaves")
    .values(
      chunk.leaves.map((leaf, i) => ({
        batch_address: batchAddress,
        leaf_index: chunk.startIndex + i,
        action_type: leaf.actionType,
        privacy: leaf.privacyMode ? 1 : 0,
        stored_hash: bytesToHex(leaf.storedHash),
      })),
    )
    .onConflict((conflict) => conflict.columns(["batch_address", "leaf_index"]).doNothing())
    .execute();
  await completeWithStagedLeaves(context, row);
}

async function batchRow(context: ApplyContext, address: string): Promise<BatchRow | undefined> {
  return await context.db.selectFrom("batches").selectAll().where("address", "=", address).executeTakeFirst();
}

/**
 * Counts the batch's staged leaves as published, and once they are all there (the program takes
 * each index once, below `item_count`), makes them its items. Nothing while its commit is not
 * indexed (no row), or once it is complete.
 */
async function completeWithStagedLeaves(context: ApplyContext, row: BatchRow | undefined): Promise<void> {
  if (row === undefined || row.complete === 1) return;
  const { address } = row;
  const { staged } = (await context.db
    .selectFrom("batch_leaves")
    .select((eb) => eb.fn.countAll<number | string>().as("staged"))
    .where("batch_address", "=", address)
    .executeTakeFirst())!;
  const leavesPublished = Number(staged);
  const complete = leavesPublished >= row.item_count;
  const itemsIndexed = complete && (await insertBatchItems(context, row));
  await context.db
    .updateTable("batches")
    .set({
      leaves_published: leavesPublished,
      complete: complete ? 1 : 0,
      items_indexed: itemsIndexed ? 1 : 0,
    })
    .where("address", "=", address)
    .execute();
}

async function stagedLeaves(context: ApplyContext, batchAddress: string): Promise<LeafData[]> {
  const rows = await context.db
    .selectFrom("batch_leaves")
    .select(["action_type", "privacy", "stored_hash"])
    .where("batch_address", "=", batchAddress)
    .orderBy("leaf_index")
    .execute();
  return rows.map((leaf) => ({
    actionType: leaf.action_type as ActionType,
    privacyMode: leaf.privacy === 1,
    storedHash: hexToBytes(leaf.stored_hash, HASH_SIZE),
  }));
}

/** Stages the items of a complete batch once its leaves reproduce its root; false when they do not. */
async function insertBatchItems(context: ApplyContext, row: BatchRow): Promise<boolean> {
  const verification = verifyBatchItems(
    { merkleRoot: row.merkle_root, itemCount: row.item_count },
    await stagedLeaves(context, row.address),
  );
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
  context.attestationRows.push(...items);
  await context.db.deleteFrom("batch_leaves").where("batch_address", "=", row.address).execute();
  return true;
}
