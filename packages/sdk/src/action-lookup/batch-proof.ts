import { buildInclusionProof, bytesToHex, computeLeafHash, type LeafData } from "@abas/program-client";

/**
 * A batch item's Merkle inclusion proof, built from the leaves the batch published on the ledger
 * (sibling hashes from the leaf up, hex); null while the batch is incomplete, when the tree is not
 * yet the signed one.
 */
export function proofFromLedgerLeaves(
  leaves: readonly LeafData[],
  itemCount: number,
  index: number,
): string[] | null {
  if (leaves.length !== itemCount || index >= leaves.length) return null;
  return buildInclusionProof(leaves.map(computeLeafHash), index).map(bytesToHex);
}
