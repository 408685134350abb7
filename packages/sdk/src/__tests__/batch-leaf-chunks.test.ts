import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { before, describe, it } from "node:test";

import { ActionType, buildPublishBatchLeavesInstruction, type LeafData } from "@abas/program-client";
import {
  blockhash,
  createKeyPairSignerFromBytes,
  getTransactionSize,
  signTransactionMessageWithSigners,
  type KeyPairSigner,
} from "@solana/kit";

import { maxLeavesPerTransaction, planLeafChunks } from "../batch-leaf-chunks.js";
import { LOCAL_PROGRAM_ID } from "../client-config.js";
import { computeUnitLimitFromSimulation } from "../compute-budget.js";
import { buildTransactionMessage } from "../transaction-message.js";
import { generateSecretKey } from "../keypair.js";

const TRANSACTION_SIZE_LIMIT = 1232;
const leaves: LeafData[] = Array.from({ length: 100 }, (_, i) => ({
  actionType: ActionType.ToolCall,
  privacyMode: i % 2 === 0,
  storedHash: new Uint8Array(randomBytes(32)),
}));

let operator: KeyPairSigner;

async function publishInstruction(leafCount: number) {
  return await buildPublishBatchLeavesInstruction({
    programId: LOCAL_PROGRAM_ID,
    operator,
    agent: (await createKeyPairSignerFromBytes(generateSecretKey())).address,
    merkleRoot: new Uint8Array(32).fill(9),
    startIndex: 0,
    leaves: leaves.slice(0, leafCount),
  });
}

/** The size of the real signed transaction that publishes `leafCount` leaves. */
async function signedSize(leafCount: number, priorityFeeMicroLamports?: bigint): Promise<number> {
  const message = buildTransactionMessage(
    { feePayer: operator, instructions: [await publishInstruction(leafCount)] },
    { blockhash: blockhash("GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi"), lastValidBlockHeight: 1n },
    123_456,
    priorityFeeMicroLamports,
  );
  return getTransactionSize(await signTransactionMessageWithSigners(message));
}

describe("publishing a batch's leaves", () => {
  before(async () => {
    operator = await createKeyPairSignerFromBytes(generateSecretKey());
  });

  for (const priorityFeeMicroLamports of [undefined, 1_000_000n]) {
    it(`fits as many leaves as 1 232 bytes allow (priority fee: ${priorityFeeMicroLamports ?? "none"})`, async () => {
      // Given the largest chunk the planner allows
      const maxLeaves = maxLeavesPerTransaction(
        operator,
        await publishInstruction(1),
        100,
        priorityFeeMicroLamports,
      );
      // Then a signed transaction of that many leaves fits, and one more leaf would not
      assert.ok((await signedSize(maxLeaves, priorityFeeMicroLamports)) <= TRANSACTION_SIZE_LIMIT);
      assert.ok((await signedSize(maxLeaves + 1, priorityFeeMicroLamports)) > TRANSACTION_SIZE_LIMIT);
      assert.ok(maxLeaves >= 25, `only ${maxLeaves} leaves per transaction`);
    });
  }

  it("never plans more leaves than the batch has", async () => {
    assert.equal(maxLeavesPerTransaction(operator, await publishInstruction(1), 3), 3);
  });

  it("covers the batch in consecutive chunks, the last one possibly shorter", () => {
    assert.deepEqual(planLeafChunks(100, 27), [
      { startIndex: 0, leafCount: 27 },
      { startIndex: 27, leafCount: 27 },
      { startIndex: 54, leafCount: 27 },
      { startIndex: 81, leafCount: 19 },
    ]);
    assert.deepEqual(planLeafChunks(10, 27), [{ startIndex: 0, leafCount: 10 }]);
    // resuming after 54 published leaves
    assert.deepEqual(planLeafChunks(100, 27, 54), [
      { startIndex: 54, leafCount: 27 },
      { startIndex: 81, leafCount: 19 },
    ]);
  });
});

describe("computeUnitLimitFromSimulation", () => {
  it("adds the margin, rounds up, and stays within the runtime's maximum", () => {
    assert.equal(computeUnitLimitFromSimulation(10_000, 0.2), 12_000);
    assert.equal(computeUnitLimitFromSimulation(1_001, 0.1), 1_102);
    assert.equal(computeUnitLimitFromSimulation(1_300_000, 0.2), 1_400_000);
    assert.equal(computeUnitLimitFromSimulation(5_000, 0), 5_000);
  });
});
