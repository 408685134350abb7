import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ActionType, computeBatchMerkleRoot, type BatchAccount, type LeafData } from "@abas/program-client";
import { address } from "@solana/kit";

import { verifyBatchItems } from "../batch-item-verification.js";

const SOME_ADDRESS = address("5RM2JWdhiGGfkBnB16BpZiJoXa79E1rW31pB4YWBZbkN");

const leaves: LeafData[] = Array.from({ length: 5 }, (_, i) => ({
  actionType: ActionType.ToolCall,
  privacyMode: i === 3,
  storedHash: new Uint8Array(32).fill(i + 1),
}));

function batch(overrides: Partial<BatchAccount> = {}): BatchAccount {
  const merkleRoot = computeBatchMerkleRoot(leaves);
  return {
    nonce: merkleRoot,
    credential: SOME_ADDRESS,
    schema: SOME_ADDRESS,
    signer: SOME_ADDRESS,
    expiry: 0n,
    tokenAccount: SOME_ADDRESS,
    merkleRoot,
    itemCount: leaves.length,
    actionTypes: 0b0010,
    agentSignature: new Uint8Array(64),
    operator: SOME_ADDRESS,
    timestamp: 1n,
    slot: 1n,
    leavesPublished: leaves.length,
    leaves,
    isComplete: true,
    ...overrides,
  };
}

describe("verifyBatchItems", () => {
  it("accepts the leaves of a complete batch that recompute its root", () => {
    assert.deepEqual(verifyBatchItems(batch()), { verified: true, leaves });
  });

  it("refuses a batch whose leaves are not all published", () => {
    const result = verifyBatchItems(
      batch({ leaves: leaves.slice(0, 3), leavesPublished: 3, isComplete: false }),
    );
    assert.deepEqual(result, { verified: false, reason: "3 of 5 leaves are published" });
  });

  it("refuses leaves that do not recompute the stored root, whatever the program said", () => {
    // Given a complete batch where one leaf differs from what the agent signed
    const tampered = leaves.map((leaf, i) => (i === 2 ? { ...leaf, privacyMode: !leaf.privacyMode } : leaf));
    // Then its items are not accepted
    const result = verifyBatchItems(batch({ leaves: tampered }));
    assert.equal(result.verified, false);
    assert.match(
      (result as { reason: string }).reason,
      /^the leaves give the root [0-9a-f]{64}, the batch holds/,
    );
  });
});
