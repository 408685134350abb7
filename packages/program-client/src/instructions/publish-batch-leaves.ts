import { ABAS_SDK__INVALID_LEAF_COUNT, ABAS_SDK__INVALID_LEAF_START_INDEX, AbasError } from "@abas/errors";
import type { Address, ReadonlyUint8Array, TransactionSigner } from "@solana/kit";

import { deriveBatchAddress, deriveIssuerAddresses } from "../addresses.js";
import {
  HASH_SIZE,
  InstructionDiscriminator,
  LEAF_DATA_SIZE,
  MAX_BATCH_ITEMS,
  PUBLISH_BATCH_LEAVES_HEADER_SIZE,
} from "../constants.js";
import {
  assertValidLeafData,
  decodeLeafData,
  writeRawLeafData,
  type LeafData,
  type RawLeafData,
} from "../leaf-data.js";
import { assertByteLength, assertU8 } from "../validation.js";
import { readonly, writable, writableSigner, type AbasInstruction } from "./account-metas.js";

export type PublishBatchLeavesInstructionDataInput = Readonly<{
  startIndex: number;
  /** Raw leaves, so tests can publish action types and flags the program must reject. */
  leaves: readonly RawLeafData[];
}>;

/** `[5, start_index, leaf_count, leaf_data(34 × leaf_count)]`; values are only checked to fit. */
export function encodePublishBatchLeavesInstructionData({
  startIndex,
  leaves,
}: PublishBatchLeavesInstructionDataInput): Uint8Array {
  assertU8(startIndex, "startIndex");
  assertU8(leaves.length, "leaves.length");
  const data = new Uint8Array(PUBLISH_BATCH_LEAVES_HEADER_SIZE + LEAF_DATA_SIZE * leaves.length);
  data.set([InstructionDiscriminator.PublishBatchLeaves, startIndex, leaves.length]);
  leaves.forEach((leaf, i) =>
    writeRawLeafData(data, PUBLISH_BATCH_LEAVES_HEADER_SIZE + LEAF_DATA_SIZE * i, leaf),
  );
  return data;
}

export type PublishBatchLeavesInstructionInput = Readonly<{
  programId: Address;
  /** The operator that committed the batch; it gets the frontier's rent back with the last chunk. */
  operator: TransactionSigner;
  /** With the root, identifies the batch. */
  agent: Address;
  merkleRoot: ReadonlyUint8Array;
  /** Index of the first leaf of this chunk in the batch. */
  startIndex: number;
  leaves: readonly LeafData[];
}>;

function assertLeafChunk(startIndex: number, leaves: readonly LeafData[]): void {
  if (leaves.length < 1 || leaves.length > MAX_BATCH_ITEMS) {
    throw new AbasError(ABAS_SDK__INVALID_LEAF_COUNT, {
      leafCount: leaves.length,
      maxLeafCount: MAX_BATCH_ITEMS,
    });
  }
  if (!Number.isInteger(startIndex) || startIndex < 0 || startIndex + leaves.length > MAX_BATCH_ITEMS) {
    throw new AbasError(ABAS_SDK__INVALID_LEAF_START_INDEX, {
      startIndex,
      leafCount: leaves.length,
      maxItemCount: MAX_BATCH_ITEMS,
    });
  }
  leaves.forEach(assertValidLeafData);
}

/**
 * Publishes the next chunk of a batch's leaves (chunks go in order: `startIndex` must be how many
 * the batch already has). The program folds them into its Merkle frontier; with the last leaf the
 * root must be the signed one, or the chunk is refused.
 */
export async function buildPublishBatchLeavesInstruction({
  programId,
  operator,
  agent,
  merkleRoot,
  startIndex,
  leaves,
}: PublishBatchLeavesInstructionInput): Promise<AbasInstruction> {
  assertByteLength(merkleRoot, HASH_SIZE, "merkleRoot");
  assertLeafChunk(startIndex, leaves);
  const [issuer, batch] = await Promise.all([
    deriveIssuerAddresses(programId),
    deriveBatchAddress(programId, agent, merkleRoot),
  ]);
  return {
    programAddress: programId,
    accounts: [writableSigner(operator), writable(batch.address), readonly(issuer.batchSchema.address)],
    data: encodePublishBatchLeavesInstructionData({ startIndex, leaves }),
  };
}

export type PublishBatchLeavesInstructionData = Readonly<{ startIndex: number; leaves: LeafData[] }>;

/**
 * The chunk a `publish_batch_leaves` instruction carries, or undefined when its data is not a
 * well-formed chunk (a transaction the program refused can carry anything).
 */
export function decodePublishBatchLeavesInstructionData(
  data: Uint8Array,
): PublishBatchLeavesInstructionData | undefined {
  const [discriminator, startIndex, leafCount] = data;
  if (
    discriminator !== InstructionDiscriminator.PublishBatchLeaves ||
    startIndex === undefined ||
    leafCount === undefined ||
    leafCount === 0 ||
    data.length !== PUBLISH_BATCH_LEAVES_HEADER_SIZE + LEAF_DATA_SIZE * leafCount
  ) {
    return undefined;
  }
  const leaves: LeafData[] = [];
  for (let i = 0; i < leafCount; i++) {
    const leaf = decodeLeafData(data.subarray(PUBLISH_BATCH_LEAVES_HEADER_SIZE + LEAF_DATA_SIZE * i));
    if (leaf === undefined) return undefined;
    leaves.push(leaf);
  }
  return { startIndex, leaves };
}
