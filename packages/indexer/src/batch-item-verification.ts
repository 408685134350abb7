/**
 * The indexer's own check of a complete batch before its items become attestations: the published
 * leaves must recompute the Merkle root the agent signed. The program already refuses a last chunk
 * that does not; checking again means a bug or a different program at this address cannot put
 * unsigned items in the database.
 */
import { bytesToHex, computeBatchMerkleRoot, type BatchAccount, type LeafData } from "@abas/program-client";

export type BatchItemsVerification =
  Readonly<{ verified: true; leaves: readonly LeafData[] }> | Readonly<{ verified: false; reason: string }>;

export function verifyBatchItems(batch: BatchAccount): BatchItemsVerification {
  if (!batch.isComplete || batch.leaves.length !== batch.itemCount) {
    return { verified: false, reason: `${batch.leaves.length} of ${batch.itemCount} leaves are published` };
  }
  const recomputed = bytesToHex(computeBatchMerkleRoot(batch.leaves));
  const signed = bytesToHex(batch.merkleRoot);
  if (recomputed !== signed) {
    return { verified: false, reason: `the leaves give the root ${recomputed}, the batch holds ${signed}` };
  }
  if (bytesToHex(batch.nonce) !== signed) {
    return { verified: false, reason: "the attestation nonce is not the Merkle root" };
  }
  return { verified: true, leaves: batch.leaves };
}
