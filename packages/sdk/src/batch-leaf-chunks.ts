/**
 * How a batch's leaves are split over `publish_batch_leaves` transactions: as few as fit the
 * 1 232-byte limit of a transaction. Every chunk names the same four accounts, so only the leaf
 * count changes a chunk's size and one maximum serves every chunk.
 */
import { LEAF_DATA_SIZE, PUBLISH_BATCH_LEAVES_HEADER_SIZE, type AbasInstruction } from "@abas/program-client";
import {
  AccountRole,
  blockhash,
  isSignerRole,
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

/** Found maxima, by what a transaction's size depends on besides its leaves (see `sizeShape`). */
const maxLeavesFound = new Map<string, number>();
const MAX_LEAVES_FOUND_LIMIT = 1024;

/**
 * A transaction's size depends on how many distinct accounts it names and how many of them sign,
 * not on which they are: with the item count and the priority fee, that is the same for every
 * batch of one agent and operator.
 */
function sizeShape(
  feePayer: TransactionSigner,
  instruction: AbasInstruction,
  itemCount: number,
  priorityFeeMicroLamports: bigint | undefined,
): string {
  const accounts = [
    ...instruction.accounts,
    { address: feePayer.address, role: AccountRole.WRITABLE_SIGNER },
  ];
  const distinct = new Set([instruction.programAddress, ...accounts.map(({ address }) => address)]);
  const signers = new Set(accounts.filter(({ role }) => isSignerRole(role)).map(({ address }) => address));
  return `${distinct.size} ${signers.size} ${itemCount} ${priorityFeeMicroLamports ?? 0n}`;
}

/**
 * The most leaves one `publish_batch_leaves` transaction holds, given any chunk's instruction: a
 * binary search, since a transaction only grows with its leaf count; kept for the next batch of
 * the same shape.
 */
export function maxLeavesPerTransaction(
  feePayer: TransactionSigner,
  instruction: AbasInstruction,
  itemCount: number,
  priorityFeeMicroLamports?: bigint,
): number {
  const key = sizeShape(feePayer, instruction, itemCount, priorityFeeMicroLamports);
  const found = maxLeavesFound.get(key);
  if (found !== undefined) return found;
  const fitting = searchMaxLeaves(feePayer, instruction, itemCount, priorityFeeMicroLamports);
  if (maxLeavesFound.size >= MAX_LEAVES_FOUND_LIMIT) maxLeavesFound.clear();
  maxLeavesFound.set(key, fitting);
  return fitting;
}

function searchMaxLeaves(
  feePayer: TransactionSigner,
  instruction: AbasInstruction,
  itemCount: number,
  priorityFeeMicroLamports: bigint | undefined,
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
