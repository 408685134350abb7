/**
 * The batch Merkle tree, RFC 6962 shaped: computed level by level, neighbours are paired left to
 * right and an unpaired last node is carried up unchanged, which gives the same root as RFC 6962's
 * "split at the largest power of two below n".
 */
import { ABAS_SDK__EMPTY_MERKLE_TREE, ABAS_SDK__INVALID_MERKLE_LEAF_INDEX, AbasError } from "@abas/errors";
import type { ReadonlyUint8Array } from "@solana/kit";

import { HASH_SIZE } from "./constants.js";
import { hashNode } from "./hashing.js";
import { computeLeafHash, type LeafData } from "./leaf-data.js";
import { assertByteLength } from "./validation.js";

function assertLeafHashes(leafHashes: readonly ReadonlyUint8Array[]): void {
  if (leafHashes.length === 0) throw new AbasError(ABAS_SDK__EMPTY_MERKLE_TREE);
  leafHashes.forEach((leafHash, i) => assertByteLength(leafHash, HASH_SIZE, `leafHashes[${i}]`));
}

function parentLevel(level: readonly ReadonlyUint8Array[]): ReadonlyUint8Array[] {
  const parents: ReadonlyUint8Array[] = [];
  for (let i = 0; i < level.length; i += 2) {
    const right = level[i + 1];
    parents.push(right === undefined ? level[i]! : hashNode(level[i]!, right));
  }
  return parents;
}

export function computeMerkleRoot(leafHashes: readonly ReadonlyUint8Array[]): Uint8Array {
  assertLeafHashes(leafHashes);
  let level: readonly ReadonlyUint8Array[] = leafHashes;
  while (level.length > 1) level = parentLevel(level);
  return Uint8Array.from(level[0]!);
}

/** The root a batch of items commits to, as the agent signs it and the program recomputes it. */
export function computeBatchMerkleRoot(leaves: readonly LeafData[]): Uint8Array {
  return computeMerkleRoot(leaves.map(computeLeafHash));
}

/** Every level of the tree, from the leaves up to the root. */
function treeLevels(leafHashes: readonly ReadonlyUint8Array[]): Array<readonly ReadonlyUint8Array[]> {
  assertLeafHashes(leafHashes);
  const levels: Array<readonly ReadonlyUint8Array[]> = [leafHashes];
  while (levels[levels.length - 1]!.length > 1) levels.push(parentLevel(levels[levels.length - 1]!));
  return levels;
}

/** A node carried up unchanged has no sibling on its level and adds nothing to the proof. */
function proofFromLevels(levels: ReadonlyArray<readonly ReadonlyUint8Array[]>, index: number): Uint8Array[] {
  const proof: Uint8Array[] = [];
  let position = index;
  for (const level of levels.slice(0, -1)) {
    const sibling = level[position ^ 1];
    if (sibling !== undefined) proof.push(Uint8Array.from(sibling));
    position >>= 1;
  }
  return proof;
}

/**
 * The sibling hashes from leaf `index` up to the root. A level where the node is carried up has no
 * sibling and adds nothing, so the proof can be shorter than the tree height.
 */
export function buildInclusionProof(leafHashes: readonly ReadonlyUint8Array[], index: number): Uint8Array[] {
  const levels = treeLevels(leafHashes);
  if (!Number.isInteger(index) || index < 0 || index >= leafHashes.length) {
    throw new AbasError(ABAS_SDK__INVALID_MERKLE_LEAF_INDEX, { index, leafCount: leafHashes.length });
  }
  return proofFromLevels(levels, index);
}

/** The inclusion proof of every leaf, in leaf order, from one pass over the tree. */
export function buildInclusionProofs(leafHashes: readonly ReadonlyUint8Array[]): Uint8Array[][] {
  const levels = treeLevels(leafHashes);
  return leafHashes.map((_, index) => proofFromLevels(levels, index));
}

export type InclusionProofInput = Readonly<{
  leafHash: ReadonlyUint8Array;
  index: number;
  itemCount: number;
  proof: readonly ReadonlyUint8Array[];
  root: ReadonlyUint8Array;
}>;

const isHash = (bytes: ReadonlyUint8Array): boolean => bytes.length === HASH_SIZE;

function bytesEqual(a: ReadonlyUint8Array, b: ReadonlyUint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/**
 * True when `proof` links `leafHash`, at `index` of a tree of `itemCount` leaves, to `root`. The
 * proof must have exactly the siblings that tree shape needs. Untrusted input never throws: any
 * malformed proof is simply not valid.
 */
export function verifyInclusionProof({
  leafHash,
  index,
  itemCount,
  proof,
  root,
}: InclusionProofInput): boolean {
  if (!Number.isInteger(itemCount) || itemCount < 1) return false;
  if (!Number.isInteger(index) || index < 0 || index >= itemCount) return false;
  if (!isHash(leafHash) || !isHash(root) || !proof.every(isHash)) return false;

  let node: ReadonlyUint8Array = leafHash;
  let position = index;
  let levelSize = itemCount;
  let siblingsUsed = 0;
  while (levelSize > 1) {
    const isRightChild = position % 2 === 1;
    const hasRightSibling = position + 1 < levelSize;
    if (isRightChild || hasRightSibling) {
      const sibling = proof[siblingsUsed++];
      if (sibling === undefined) return false;
      node = isRightChild ? hashNode(sibling, node) : hashNode(node, sibling);
    }
    position >>= 1;
    levelSize = (levelSize + 1) >> 1;
  }
  return siblingsUsed === proof.length && bytesEqual(node, root);
}
