/**
 * How a batch's leaves are split over `publish_batch_leaves` transactions: as few as fit the
 * 1 232-byte limit of a transaction. Every chunk names the same four accounts, so only the leaf
 * count changes a chunk's size and one maximum serves every chunk.
 */
import { LEAF_DATA_SIZE, PUBLISH_BATCH_LEAVES_HEADER_SIZE, type AbasInstruction } from "@abas/program-client";
import {
  blockhash,
  getTransactionMessageSize,
  getTransactionMessageSizeLimit,
  type TransactionSigner,
} from "@solana/kit";

import { MAX_COMPUTE_UNIT_LIMIT } from "./compute-budget.js";
import { buildTransactionMessage } from "./transaction-message.js";

export type LeafChunk = Readonly<{ startIndex: number; leafCount: number }>;

// Only the length of the blockhash matters for the size.
const SIZING_LIFETIME = {
  blockhash: blockhash("11111111111111111111111111111111"),
  lastValidBlockHeight: 0n,
};

/** The size of the signed transaction that publishes `leafCount` leaves with `instruction`'s accounts. */
function publishTransactionSize(
  feePayer: TransactionSigner,
  instruction: AbasInstruction,
  leafCount: number,
  priorityFeeMicroLamports: bigint | undefined,
): { size: number; limit: number } {
  const sizedInstruction = {
    ...instruction,
    data: new Uint8Array(PUBLISH_BATCH_LEAVES_HEADER_SIZE + LEAF_DATA_SIZE * leafCount),
  };
  const message = buildTransactionMessage(
    { feePayer, instructions: [sizedInstruction] },
    SIZING_LIFETIME,
    MAX_COMPUTE_UNIT_LIMIT,
    priorityFeeMicroLamports,
  );
  return { size: getTransactionMessageSize(message), limit: getTransactionMessageSizeLimit(message) };
}

/**
 * The most leaves one `publish_batch_leaves` transaction holds, given any chunk's instruction: a
 * binary search, since a transaction only grows with its leaf count.
 */
export function maxLeavesPerTransaction(
  feePayer: TransactionSigner,
  instruction: AbasInstruction,
  itemCount: number,
  priorityFeeMicroLamports?: bigint,
): number {
  const fits = (leafCount: number): boolean => {
    const { size, limit } = publishTransactionSize(
      feePayer,
      instruction,
      leafCount,
      priorityFeeMicroLamports,
    );
    return size <= limit;
  };
  // Invariant: `fitting` leaves fit (one always does: it is sent alone if need be), `tooMany` do not.
  let fitting = 1;
  let tooMany = itemCount + 1;
  while (tooMany - fitting > 1) {
    const middle = (fitting + tooMany) >> 1;
    if (fits(middle)) fitting = middle;
    else tooMany = middle;
  }
  return fitting;
}

/** Consecutive chunks of at most `maxLeaves` leaves that cover `0..itemCount`. */
export function planLeafChunks(itemCount: number, maxLeaves: number, fromIndex = 0): LeafChunk[] {
  const chunks: LeafChunk[] = [];
  for (let startIndex = fromIndex; startIndex < itemCount; startIndex += maxLeaves) {
    chunks.push({ startIndex, leafCount: Math.min(maxLeaves, itemCount - startIndex) });
  }
  return chunks;
}
