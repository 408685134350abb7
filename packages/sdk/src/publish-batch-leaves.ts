import { buildPublishBatchLeavesInstruction, type LeafData } from "@abas/program-client";
import type { ReadonlyUint8Array, TransactionSigner } from "@solana/kit";

import { maxLeavesPerTransaction, planLeafChunks } from "./batch-leaf-chunks.js";
import type { ClientContext } from "./client-context.js";
import { sendAndConfirmTransaction, withSharedBlockhash } from "./send-transaction.js";

export type PublishLeavesInput = Readonly<{
  merkleRoot: ReadonlyUint8Array;
  /** Every leaf of the batch, in order. */
  leaves: readonly LeafData[];
  /** The first leaf to publish: 0, or how many the ledger already holds. */
  fromIndex: number;
  /** Called after each confirmed chunk with its signature and the leaves published so far. */
  onChunkPublished?: (txSignature: string, leavesPublished: number) => void;
}>;

/**
 * Publishes the leaves of a recorded batch, in order, in as few transactions as fit; returns their
 * signatures. The last chunk makes the program recompute the root from every stored leaf.
 */
export async function publishBatchLeaves(
  context: ClientContext,
  operator: TransactionSigner,
  { merkleRoot, leaves, fromIndex, onChunkPublished }: PublishLeavesInput,
): Promise<string[]> {
  const { programId, priorityFeeMicroLamports } = context.settings;
  const agent = context.agent.address;
  const buildChunkInstruction = (startIndex: number, leafCount: number) =>
    buildPublishBatchLeavesInstruction({
      programId,
      operator,
      agent,
      merkleRoot,
      startIndex,
      leaves: leaves.slice(startIndex, startIndex + leafCount),
    });
  if (fromIndex >= leaves.length) return [];

  const sizingInstruction = await buildChunkInstruction(fromIndex, 1);
  const maxLeaves = maxLeavesPerTransaction(
    operator,
    sizingInstruction,
    leaves.length,
    priorityFeeMicroLamports,
  );
  const signatures: string[] = [];
  // Each chunk is a different transaction: they share one blockhash.
  const sendSettings = withSharedBlockhash(context.sendSettings);
  for (const { startIndex, leafCount } of planLeafChunks(leaves.length, maxLeaves, fromIndex)) {
    const instruction = await buildChunkInstruction(startIndex, leafCount);
    const sent = await sendAndConfirmTransaction(sendSettings, {
      feePayer: operator,
      instructions: [instruction],
      // The units a chunk consumes follow from where it starts, its length and the batch's size.
      computeUnitsKey: `publish_batch_leaves:${startIndex}:${leafCount}:${leaves.length}`,
    });
    signatures.push(sent.signature);
    onChunkPublished?.(sent.signature, startIndex + leafCount);
  }
  return signatures;
}
