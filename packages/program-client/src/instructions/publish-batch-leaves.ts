import { ABAS_SDK__INVALID_LEAF_COUNT, ABAS_SDK__INVALID_LEAF_START_INDEX, AbasError } from "@abas/errors";
import type { Address, ReadonlyUint8Array, TransactionSigner } from "@solana/kit";

import { deriveBatchAddress, deriveIssuerAddresses } from "../addresses.js";
import { HASH_SIZE, MAX_BATCH_ITEMS } from "../constants.js";
import {
  getPublishBatchLeavesInstruction,
  getPublishBatchLeavesInstructionDataDecoder,
  getPublishBatchLeavesInstructionDataEncoder,
  PUBLISH_BATCH_LEAVES_DISCRIMINATOR,
} from "../generated/index.js";
import {
  assertValidLeafData,
  rawLeafDataArgs,
  toLeafData,
  type LeafData,
  type RawLeafData,
} from "../leaf-data.js";
import { assertByteLength, assertU8 } from "../validation.js";
import { asAbasInstruction, type AbasInstruction } from "./account-metas.js";

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
  return Uint8Array.from(
    getPublishBatchLeavesInstructionDataEncoder().encode({ startIndex, leaves: leaves.map(rawLeafDataArgs) }),
  );
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
  return asAbasInstruction(
    getPublishBatchLeavesInstruction(
      {
        operator,
        agent,
        merkleRoot,
        batch: batch.address,
        batchSchema: issuer.batchSchema.address,
        startIndex,
        leaves: leaves.map(rawLeafDataArgs),
      },
      { programAddress: programId },
    ),
  );
}

export type PublishBatchLeavesInstructionData = Readonly<{ startIndex: number; leaves: LeafData[] }>;

/**
 * The chunk a `publish_batch_leaves` instruction carries, or undefined when its data is not a
 * well-formed chunk (a transaction the program refused can carry anything).
 */
export function decodePublishBatchLeavesInstructionData(
  data: Uint8Array,
): PublishBatchLeavesInstructionData | undefined {
  if (data[0] !== PUBLISH_BATCH_LEAVES_DISCRIMINATOR) return undefined;
  let decoded;
  try {
    const [value, end] = getPublishBatchLeavesInstructionDataDecoder().read(data, 0);
    if (end !== data.length) return undefined;
    decoded = value;
  } catch {
    return undefined;
  }
  if (decoded.leaves.length === 0) return undefined;
  const leaves = decoded.leaves.map(toLeafData);
  if (leaves.some((leaf) => leaf === undefined)) return undefined;
  return { startIndex: decoded.startIndex, leaves: leaves as LeafData[] };
}
