import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ActionType, bytesToHex, computeBatchMerkleRoot, type LeafData } from "@abas/program-client";

import { verifyBatchItems } from "../batch-item-verification.js";

const leaves: LeafData[] = Array.from({ length: 5 }, (_, i) => ({
  actionType: ActionType.ToolCall,
  privacyMode: i === 3,
  storedHash: new Uint8Array(32).fill(i + 1),
}));

const batch = { merkleRoot: bytesToHex(computeBatchMerkleRoot(leaves)), itemCount: leaves.length };

describe("verifyBatchItems", () => {
  it("accepts the leaves of a complete batch that recompute its root", () => {
    assert.deepEqual(verifyBatchItems(batch, leaves), { verified: true, leaves });
  });

  it("refuses a batch whose leaves are not all known", () => {
    const result = verifyBatchItems(batch, leaves.slice(0, 3));
    assert.deepEqual(result, { verified: false, reason: "3 of 5 leaves are known" });
  });

  it("refuses leaves that do not recompute the stored root, whatever the program said", () => {
    // Given a complete batch where one leaf differs from what the agent signed
    const tampered = leaves.map((leaf, i) => (i === 2 ? { ...leaf, privacyMode: !leaf.privacyMode } : leaf));
    // Then its items are not accepted
    const result = verifyBatchItems(batch, tampered);
    assert.equal(result.verified, false);
    assert.match(
      (result as { reason: string }).reason,
      /^the leaves give the root [0-9a-f]{64}, the batch holds/,
    );
  });
});
