import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";

import {
  ABAS_SDK__EMPTY_MERKLE_TREE,
  ABAS_SDK__INVALID_BYTE_LENGTH,
  ABAS_SDK__INVALID_MERKLE_LEAF_INDEX,
} from "@abas/errors";

import { ActionType } from "../action-types.js";
import { MAX_BATCH_ITEMS } from "../constants.js";
import { computeLeafHash, type LeafData } from "../leaf-data.js";
import {
  buildInclusionProof,
  buildInclusionProofs,
  computeBatchMerkleRoot,
  computeMerkleRoot,
  verifyInclusionProof,
} from "../merkle.js";
import { assertThrowsAbasError } from "./assert-abas-error.js";

/*
 * An independent RFC 6962 (section 2.1) implementation, written from the RFC's recursive
 * definitions: MTH splits at the largest power of two below n; PATH(m, D[n]) is the audit path.
 */
const sha256 = (...parts: Uint8Array[]): Uint8Array =>
  new Uint8Array(createHash("sha256").update(Buffer.concat(parts)).digest());
const rfcNode = (left: Uint8Array, right: Uint8Array): Uint8Array => sha256(Uint8Array.of(1), left, right);

function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function rfcTreeHash(leafHashes: Uint8Array[]): Uint8Array {
  if (leafHashes.length === 1) return leafHashes[0]!;
  const k = largestPowerOfTwoBelow(leafHashes.length);
  return rfcNode(rfcTreeHash(leafHashes.slice(0, k)), rfcTreeHash(leafHashes.slice(k)));
}

function rfcAuditPath(m: number, leafHashes: Uint8Array[]): Uint8Array[] {
  if (leafHashes.length === 1) return [];
  const k = largestPowerOfTwoBelow(leafHashes.length);
  return m < k
    ? [...rfcAuditPath(m, leafHashes.slice(0, k)), rfcTreeHash(leafHashes.slice(k))]
    : [...rfcAuditPath(m - k, leafHashes.slice(k)), rfcTreeHash(leafHashes.slice(0, k))];
}

/** Distinct leaf hashes, as leaf hashing would give them (the tree does not care how). */
const leafHashesOf = (n: number): Uint8Array[] =>
  Array.from({ length: n }, (_, i) => sha256(Uint8Array.of(0, i & 0xff, i >> 8)));

describe("Merkle tree against RFC 6962", () => {
  it("computes the RFC 6962 root for every size from 1 to 100", () => {
    for (let n = 1; n <= MAX_BATCH_ITEMS; n++) {
      const leafHashes = leafHashesOf(n);
      assert.deepEqual(computeMerkleRoot(leafHashes), rfcTreeHash(leafHashes), `root of ${n} leaves`);
    }
  });

  it("builds the RFC 6962 audit path, and verifies it, for every size from 1 to 100 and every index", () => {
    for (let n = 1; n <= MAX_BATCH_ITEMS; n++) {
      const leafHashes = leafHashesOf(n);
      const root = rfcTreeHash(leafHashes);
      for (let index = 0; index < n; index++) {
        // Given the proof of one leaf
        const proof = buildInclusionProof(leafHashes, index);
        // Then it is the RFC's audit path, and it links the leaf to the root
        assert.deepEqual(proof, rfcAuditPath(index, leafHashes), `proof of leaf ${index} of ${n}`);
        assert.ok(
          verifyInclusionProof({ leafHash: leafHashes[index]!, index, itemCount: n, proof, root }),
          `leaf ${index} of ${n} does not verify`,
        );
      }
    }
  });

  it("builds every leaf's RFC 6962 audit path at once, for every size from 1 to 100", () => {
    for (let n = 1; n <= MAX_BATCH_ITEMS; n++) {
      const leafHashes = leafHashesOf(n);
      const expected = leafHashes.map((_, index) => rfcAuditPath(index, leafHashes));
      assert.deepEqual(buildInclusionProofs(leafHashes), expected, `proofs of ${n} leaves`);
    }
    assertThrowsAbasError(() => buildInclusionProofs([]), ABAS_SDK__EMPTY_MERKLE_TREE);
  });

  it("makes a single leaf its own root, with an empty proof", () => {
    const [leafHash] = leafHashesOf(1);
    assert.deepEqual(computeMerkleRoot([leafHash!]), leafHash);
    assert.deepEqual(buildInclusionProof([leafHash!], 0), []);
    assert.ok(
      verifyInclusionProof({ leafHash: leafHash!, index: 0, itemCount: 1, proof: [], root: leafHash! }),
    );
  });
});

describe("verifyInclusionProof", () => {
  const n = 13;
  const leafHashes = leafHashesOf(n);
  const root = computeMerkleRoot(leafHashes);
  const index = 6;
  const proof = buildInclusionProof(leafHashes, index);
  const valid = { leafHash: leafHashes[index]!, index, itemCount: n, proof, root };

  it("accepts the valid proof this suite tampers with", () => {
    assert.equal(verifyInclusionProof(valid), true);
  });

  it("rejects another leaf, another index or another root", () => {
    assert.equal(verifyInclusionProof({ ...valid, leafHash: leafHashes[index + 1]! }), false);
    assert.equal(verifyInclusionProof({ ...valid, index: index + 1 }), false);
    assert.equal(verifyInclusionProof({ ...valid, root: leafHashes[0]! }), false);
  });

  it("rejects an item count that gives the leaf another path to the root", () => {
    // Given a tree of 7 instead of 13, where leaf 6 is carried up instead of paired with leaf 7
    // Then the proof no longer fits the shape. (A count with the same path for this leaf would
    // still verify; the root is bound to its item count by the agent's signature, not by the proof.)
    assert.equal(verifyInclusionProof({ ...valid, itemCount: 7 }), false);
  });

  it("rejects a proof with a changed, missing or extra sibling", () => {
    const changed = proof.map((sibling, i) => (i === 1 ? Uint8Array.from(sibling, (b) => b ^ 1) : sibling));
    assert.equal(verifyInclusionProof({ ...valid, proof: changed }), false);
    assert.equal(verifyInclusionProof({ ...valid, proof: proof.slice(0, -1) }), false);
    assert.equal(verifyInclusionProof({ ...valid, proof: [...proof, root] }), false);
  });

  it("rejects malformed input instead of throwing", () => {
    for (const malformed of [
      { ...valid, index: -1 },
      { ...valid, index: n },
      { ...valid, index: 0.5 },
      { ...valid, itemCount: 0 },
      { ...valid, leafHash: new Uint8Array(31) },
      { ...valid, root: new Uint8Array(33) },
      { ...valid, proof: [new Uint8Array(32), new Uint8Array(5)] },
    ]) {
      assert.equal(verifyInclusionProof(malformed), false);
    }
  });
});

describe("Merkle input checks", () => {
  it("refuses an empty tree", () => {
    assertThrowsAbasError(() => computeMerkleRoot([]), ABAS_SDK__EMPTY_MERKLE_TREE);
    assertThrowsAbasError(() => buildInclusionProof([], 0), ABAS_SDK__EMPTY_MERKLE_TREE);
  });

  it("refuses a leaf index outside the tree", () => {
    const leafHashes = leafHashesOf(4);
    for (const index of [-1, 4, 1.5]) {
      assertThrowsAbasError(
        () => buildInclusionProof(leafHashes, index),
        ABAS_SDK__INVALID_MERKLE_LEAF_INDEX,
      );
    }
  });

  it("refuses leaf hashes that are not 32 bytes", () => {
    assertThrowsAbasError(
      () => computeMerkleRoot([new Uint8Array(32), new Uint8Array(34)]),
      ABAS_SDK__INVALID_BYTE_LENGTH,
    );
  });
});

describe("computeBatchMerkleRoot", () => {
  it("is the tree over the leaf hashes of the items", () => {
    const leaves: LeafData[] = [0, 1, 2, 3, 0].map((actionType, i) => ({
      actionType: actionType as ActionType,
      privacyMode: i % 2 === 1,
      storedHash: new Uint8Array(32).fill(i),
    }));
    assert.deepEqual(computeBatchMerkleRoot(leaves), rfcTreeHash(leaves.map(computeLeafHash)));
  });
});
