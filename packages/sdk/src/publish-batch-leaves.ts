import { buildPublishBatchLeavesInstruction, type LeafData } from "@abas/program-client";
import type { ReadonlyUint8Array, TransactionSigner } from "@solana/kit";

import { maxLeavesPerTransaction, planLeafChunks } from "./batch-leaf-chunks.js";
import type { ClientContext } from "./client-context.js";
import { sendAndConfirmTransaction } from "./send-transaction.js";

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
  for (const { startIndex, leafCount } of planLeafChunks(leaves.length, maxLeaves, fromIndex)) {
    const instruction = await buildChunkInstruction(startIndex, leafCount);
    const sent = await sendAndConfirmTransaction(context.sendSettings, {
      feePayer: operator,
      instructions: [instruction],
    });
    signatures.push(sent.signature);
    onChunkPublished?.(sent.signature, startIndex + leafCount);
  }
  return signatures;
}
