/**
 * The indexer's own check of a complete batch before its items become attestations: the leaves its
 * `publish_batch_leaves` chunks carried must reproduce the Merkle root the agent signed. The
 * program already refuses a last chunk that does not; checking again means a bug, a missed chunk
 * or a different program at this address cannot put unsigned items in the database.
 */
import { bytesToHex, computeBatchMerkleRoot, type LeafData } from "@abas/program-client";

export type BatchItemsVerification =
  Readonly<{ verified: true; leaves: readonly LeafData[] }> | Readonly<{ verified: false; reason: string }>;

export function verifyBatchItems(
  batch: Readonly<{ merkleRoot: string; itemCount: number }>,
  leaves: readonly LeafData[],
): BatchItemsVerification {
  if (leaves.length !== batch.itemCount) {
    return { verified: false, reason: `${leaves.length} of ${batch.itemCount} leaves are known` };
  }
  const recomputed = bytesToHex(computeBatchMerkleRoot(leaves));
  if (recomputed !== batch.merkleRoot) {
    return {
      verified: false,
      reason: `the leaves give the root ${recomputed}, the batch holds ${batch.merkleRoot}`,
    };
  }
  return { verified: true, leaves };
}
