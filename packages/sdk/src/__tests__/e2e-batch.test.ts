/**
 * Batches of 1, 10 and 100 actions against the local ledger: one transaction records the signed
 * root, the leaves follow, and every receipt verifies against the ledger.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import {
  ABAS_PROGRAM__DUPLICATE_BATCH,
  ABAS_RUNTIME__BATCH_LEAVES_UNREADABLE,
  isAbasError,
} from "@abas/errors";
import {
  ActionType,
  actionTypesMask,
  buildAttestBatchInstruction,
  buildBatchMessage,
  buildEd25519VerifyInstruction,
  buildInclusionProof,
  buildPublishBatchLeavesInstruction,
  bytesToHex,
  computeLeafHash,
  computeMerkleRoot,
  deriveBatchAddress,
  ED25519_PROGRAM_ADDRESS,
  hexToBytes,
  BATCH_COMPLETE_ACCOUNT_SIZE,
  signMessageWithKeyPair,
} from "@abas/program-client";
import {
  address,
  createDefaultRpcTransport,
  createKeyPairSignerFromBytes,
  createSolanaRpcFromTransport,
  getBase58Decoder,
} from "@solana/kit";
import { Connection, PublicKey } from "@solana/web3.js";

import type { BatchProgress } from "../batch-attest.js";
import { fetchBatchLeaves } from "../batch-leaves.js";
import { AttestationClient } from "../client.js";
import type { BatchAttestationResult, BatchItemReceipt } from "../receipts.js";
import { sendAndConfirmTransaction, type SendSettings } from "../send-transaction.js";
import type { ReceiptCheckName } from "../verify-receipt.js";
import { generateSecretKey } from "../keypair.js";
import { startCountingRpcProxy } from "./support/counting-rpc-proxy.js";
import { fundedSecretKey, startTestLedger, type TestLedger } from "./support/local-ledger.js";
import { flipHex } from "./support/offline-receipts.js";

const ACTION_TYPE_NAMES = ["Transaction", "ToolCall", "Decision", "ModelInvocation"] as const;

async function batchItems(count: number, tag: string) {
  return await Promise.all(
    Array.from({ length: count }, async (_, index) => ({
      actionHash: await AttestationClient.hashAction(AttestationClient.canonicalize({ tag, index })),
      actionType: ACTION_TYPE_NAMES[index % 4]!,
      privacyMode: index % 3 === 0,
    })),
  );
}

describe("batchAttest on the local ledger", () => {
  let ledger: TestLedger;
  let connection: Connection;
  let client: AttestationClient;
  let agentSecretKey: Uint8Array;
  let operatorKeypair: Uint8Array;
  const results = new Map<number, BatchAttestationResult>();

  before(async () => {
    ledger = await startTestLedger();
    connection = new Connection(ledger.rpcUrl, "confirmed");
    agentSecretKey = generateSecretKey();
    operatorKeypair = await fundedSecretKey(ledger, 100n * 1_000_000_000n);
    client = new AttestationClient({
      rpcUrl: ledger.rpcUrl,
      agentKeypair: agentSecretKey,
      programId: ledger.programId,
    });
    await client.registerAgent({ operatorKeypair });
  });
  after(async () => await ledger?.stop());

  for (const itemCount of [1, 10, 100]) {
    it(`records ${itemCount} item(s) with one root transaction and publishes every leaf`, async () => {
      // Given items of every type, a third of them private
      const attestations = await batchItems(itemCount, `batch of ${itemCount}`);
      const progress: BatchProgress[] = [];
      // When they are attested as a batch
      const result = await client.batchAttest({
        operatorKeypair,
        attestations,
        onProgress: (p) => progress.push(p),
      });
      results.set(itemCount, result);
      // Then the result describes the batch, and there is a receipt per item, in order
      assert.equal(result.itemCount, itemCount);
      assert.equal(result.receipts.length, itemCount);
      result.receipts.forEach((receipt, index) => {
        assert.equal(receipt.index, index);
        assert.equal(receipt.actionHash, attestations[index]!.actionHash);
        assert.equal(receipt.privacyMode, attestations[index]!.privacyMode);
        assert.equal(receipt.txSignature, result.txSignature);
        assert.equal(receipt.merkleRoot, result.merkleRoot);
      });
      // And the leaves went out in as few transactions as fit (27 leaves each, with the compute
      // budget instruction)
      assert.equal(result.leafTransactions.length, Math.ceil(itemCount / 27));
      assert.deepEqual(
        progress.map((p) => [p.stage, p.leavesPublished]),
        [
          ["root-recorded", 0],
          ...result.leafTransactions.map((_, i) => ["leaves-published", Math.min(itemCount, 27 * (i + 1))]),
        ],
      );
      // And the ledger holds the complete batch, its leaves (read back from the leaf transactions)
      // exactly the items
      const batch = await client.findBatch({ merkleRoot: result.merkleRoot });
      assert.equal(batch?.isComplete, true);
      assert.equal(batch?.leavesPublished, itemCount);
      assert.deepEqual(
        batch?.leaves?.map((leaf) => leaf.leafHash),
        result.receipts.map((receipt) => receipt.leafHash),
      );
      // And another client library sees the account at its final size: no leaf is stored in it
      const account = await connection.getAccountInfo(new PublicKey(result.batchAddress), "confirmed");
      assert.equal(account?.owner.toBase58(), ledger.programId);
      assert.equal(account?.data.length, BATCH_COMPLETE_ACCOUNT_SIZE);
      const commit = await connection.getTransaction(result.txSignature, {
        maxSupportedTransactionVersion: 0,
      });
      assert.equal(commit?.meta?.err, null);
      // And the root went in one transaction: the Ed25519 check of the agent's signature, then the program
      const message = commit!.transaction.message;
      const programs = message.compiledInstructions.map((instruction) =>
        message.staticAccountKeys[instruction.programIdIndex]!.toBase58(),
      );
      assert.deepEqual(programs.slice(-2), [ED25519_PROGRAM_ADDRESS, ledger.programId]);
    });

    it(`verifies every receipt of the batch of ${itemCount} against the ledger`, async () => {
      for (const receipt of results.get(itemCount)!.receipts) {
        const verification = await client.verifyReceipt(receipt);
        assert.equal(
          verification.valid,
          true,
          `item ${receipt.index}: ${JSON.stringify(verification.checks)}`,
        );
        assert.ok(verification.checks.merkleProof?.ok && verification.checks.batchLeaf?.ok);
      }
    });
  }

  it("fails the checks that tampered batch receipts break", async () => {
    const { receipts } = results.get(10)!;
    const [first, second] = receipts as [BatchItemReceipt, BatchItemReceipt];
    const cases: [what: string, receipt: BatchItemReceipt, failed: ReceiptCheckName[]][] = [
      ["proof", { ...first, proof: [flipHex(first.proof[0]!), ...first.proof.slice(1)] }, ["merkleProof"]],
      ["timestamp", { ...first, timestamp: first.timestamp - 1 }, ["accountFields"]],
      // An item of this batch at the wrong position: its proof does not link it there
      ["index", { ...second, index: 0 }, ["merkleProof"]],
      ["txSignature", { ...first, txSignature: results.get(1)!.txSignature }, ["transaction"]],
    ];
    for (const [what, receipt, failed] of cases) {
      const verification = await client.verifyReceipt(receipt);
      const failedNames = Object.entries(verification.checks)
        .filter(([, check]) => !check.ok)
        .map(([name]) => name);
      assert.deepEqual(failedNames, failed, `${what}: ${JSON.stringify(verification.checks)}`);
    }
  });

  it("refuses the same batch twice, by name", async () => {
    // Given a batch without private items, which has the same root when sent again
    const attestations = (await batchItems(3, "twice")).map((item) => ({ ...item, privacyMode: false }));
    await client.batchAttest({ operatorKeypair, attestations });
    await assert.rejects(
      () => client.batchAttest({ operatorKeypair, attestations }),
      (error: unknown) => isAbasError(error, ABAS_PROGRAM__DUPLICATE_BATCH),
    );
  });

  /** Records a batch's root by hand (the SDK always publishes right after) and returns its receipts. */
  async function commitBatchByHand(itemCount: number, seed: number) {
    const agent = await createKeyPairSignerFromBytes(agentSecretKey);
    const operator = await createKeyPairSignerFromBytes(operatorKeypair);
    const programId = ledger.programId;
    const leaves = Array.from({ length: itemCount }, (_, index) => ({
      actionType: ActionType.Decision,
      privacyMode: false,
      storedHash: new Uint8Array(32).fill(seed + index),
    }));
    const leafHashes = leaves.map(computeLeafHash);
    const merkleRoot = computeMerkleRoot(leafHashes);
    const actionTypes = actionTypesMask([ActionType.Decision]);
    const message = buildBatchMessage({
      programId,
      agent: agent.address,
      itemCount,
      actionTypes,
      merkleRoot,
    });
    const signature = await signMessageWithKeyPair(agent.keyPair, message);
    const sent = await sendAndConfirmTransaction(sendSettings(), {
      feePayer: operator,
      instructions: [
        buildEd25519VerifyInstruction({ publicKey: agent.address, signature, message }),
        await buildAttestBatchInstruction({
          programId,
          operator,
          agent: agent.address,
          itemCount,
          actionTypes,
          merkleRoot,
        }),
      ],
    });
    const batchAddress = (await deriveBatchAddress(programId, agent.address, merkleRoot)).address;
    const recorded = await client.findBatch({ merkleRoot: bytesToHex(merkleRoot) });
    const receipts: BatchItemReceipt[] = leaves.map((leaf, index) => ({
      index,
      itemCount,
      actionHash: bytesToHex(leaf.storedHash),
      actionType: "Decision",
      privacyMode: false,
      storedHash: bytesToHex(leaf.storedHash),
      leafHash: bytesToHex(leafHashes[index]!),
      proof: buildInclusionProof(leafHashes, index).map(bytesToHex),
      merkleRoot: bytesToHex(merkleRoot),
      batchActionTypes: ["Decision"],
      batchAddress,
      programId,
      agent: agent.address,
      operator: operator.address,
      agentSignature: getBase58Decoder().decode(signature),
      txSignature: sent.signature,
      explorerUrl: "",
      slot: recorded!.slot,
      timestamp: recorded!.timestamp,
    }));
    return { agent, operator, leaves, merkleRoot, batchAddress, receipts };
  }

  const sendSettings = () => ({
    rpc: ledger.rpc,
    programId: ledger.programId,
    commitment: "confirmed" as const,
    computeUnitMargin: 0.2,
    confirmationTimeoutMs: 30_000,
    maxSendAttempts: 3,
  });

  /** Publishes `leaves` of a batch committed by hand, from its first leaf, with `extra` settings and fields. */
  async function publishByHand(
    batch: Awaited<ReturnType<typeof commitBatchByHand>>,
    leaves: typeof batch.leaves,
    extra: { settings?: Partial<SendSettings>; computeUnitsKey?: string } = {},
  ) {
    return await sendAndConfirmTransaction(
      { ...sendSettings(), ...extra.settings },
      {
        feePayer: batch.operator,
        instructions: [
          await buildPublishBatchLeavesInstruction({
            programId: ledger.programId,
            operator: batch.operator,
            agent: batch.agent.address,
            merkleRoot: batch.merkleRoot,
            startIndex: 0,
            leaves,
          }),
        ],
        ...(extra.computeUnitsKey === undefined ? {} : { computeUnitsKey: extra.computeUnitsKey }),
      },
    );
  }

  it("finishes a batch whose leaves were never published, from its receipts", async () => {
    // Given a batch whose root is recorded and whose leaves are not published
    const { receipts } = await commitBatchByHand(30, 1);
    // Then its receipts fail only the leaf check
    const before = await client.verifyReceipt(receipts[29]!);
    assert.deepEqual(
      Object.entries(before.checks)
        .filter(([, check]) => !check.ok)
        .map(([name]) => name),
      ["batchLeaf"],
    );
    assert.match(before.checks.batchLeaf?.reason ?? "", /only 0 of the batch's 30 leaves/);
    // When the batch is completed from the receipts
    const completed = await client.completeBatch({ operatorKeypair, receipts });
    assert.equal(completed.leafTransactions.length, 2);
    // Then every receipt verifies, and completing again sends nothing
    assert.equal((await client.verifyReceipt(receipts[29]!)).valid, true);
    assert.deepEqual((await client.completeBatch({ operatorKeypair, receipts })).leafTransactions, []);
  });

  it("measures and sends again a transaction whose remembered units the ledger refuses for its budget", async () => {
    // Given a batch of 10 whose leaves are not published, and their shape remembered far too low
    const batch = await commitBatchByHand(10, 150);
    const knownComputeUnits = new Map([["ten leaves", 100]]);
    // When its leaves are sent as that shape
    const sent = await publishByHand(batch, batch.leaves, {
      settings: { knownComputeUnits },
      computeUnitsKey: "ten leaves",
    });
    // Then the ledger's refusal made the client measure it: it landed, sized from the measure the
    // shape now keeps
    assert.equal(sent.attempts, 1);
    assert.ok(sent.simulatedComputeUnits > 100);
    assert.equal(knownComputeUnits.get("ten leaves"), sent.simulatedComputeUnits);
    const found = await client.findBatch({ merkleRoot: bytesToHex(batch.merkleRoot) });
    assert.equal(found?.isComplete, true);
  });

  it("reads a batch's leaves back from its leaf transactions, half published or complete", async () => {
    // Given a batch of 40 whose first 15 leaves are published by hand
    const batch = await commitBatchByHand(40, 100);
    const { leaves, batchAddress, receipts } = batch;
    await publishByHand(batch, leaves.slice(0, 15));
    const read = () =>
      fetchBatchLeaves(ledger.rpc, { programId: ledger.programId, batchAddress, commitment: "confirmed" });

    // When its leaves are read from the ledger
    const half = await read();

    // Then the 15 published leaves come back, the batch pending
    assert.equal(half?.account.isComplete, false);
    assert.deepEqual(
      half?.leaves.map(computeLeafHash).map(bytesToHex),
      receipts.slice(0, 15).map((r) => r.leafHash),
    );

    // And once completed from the receipts (from leaf 15 on), all 40 come back in order
    const completed = await client.completeBatch({ operatorKeypair, receipts });
    assert.equal(completed.leafTransactions.length, 1);
    const full = await read();
    assert.equal(full?.account.isComplete, true);
    assert.deepEqual(
      full?.leaves.map(computeLeafHash).map(bytesToHex),
      receipts.map((r) => r.leafHash),
    );
    // And an address without a batch gives null
    const nothing = await fetchBatchLeaves(ledger.rpc, {
      programId: ledger.programId,
      batchAddress: batch.agent.address,
      commitment: "confirmed",
    });
    assert.equal(nothing, null);
  });

  it("names a node whose history lacks a leaf transaction: BATCH_LEAVES_UNREADABLE (injected fault)", async () => {
    // Given a complete batch of 100, and (the fault, injected on purpose) an RPC transport in front
    // of the real node that answers one of its leaf transactions with null, as a node that pruned
    // it would
    const result = await client.batchAttest({
      operatorKeypair,
      attestations: await batchItems(100, "pruned"),
    });
    const pruned = result.leafTransactions[1]!;
    const transport = createDefaultRpcTransport({ url: ledger.rpcUrl });
    const rpc = createSolanaRpcFromTransport(
      async <T>(config: { payload: unknown; signal?: AbortSignal }) => {
        const payload = config.payload as { method: string; params: unknown[]; id: unknown };
        if (payload.method === "getTransaction" && payload.params[0] === pruned) {
          return { jsonrpc: "2.0", id: payload.id, result: null } as T;
        }
        return await transport<T>(config);
      },
    );

    // When the batch's leaves are read through it
    const outcome = fetchBatchLeaves(rpc, {
      programId: ledger.programId,
      batchAddress: address(result.batchAddress),
      commitment: "confirmed",
    });

    // Then it fails with a named error that counts what was found, rather than returning a short list
    await assert.rejects(outcome, (error: unknown) => {
      assert.ok(isAbasError(error, ABAS_RUNTIME__BATCH_LEAVES_UNREADABLE));
      assert.equal(error.context.leavesPublished, 100);
      assert.equal(error.context.leavesFound, 27);
      return true;
    });
  });

  it("sends a batch's transactions under one blockhash, and sizes a later batch's from the first's", async () => {
    // Given a client whose requests go through a proxy that counts them
    const proxy = await startCountingRpcProxy(ledger.rpcUrl);
    const counted = new AttestationClient({
      rpcUrl: proxy.url,
      agentKeypair: agentSecretKey,
      programId: ledger.programId,
    });
    try {
      // When it records two batches of 100
      const first = await counted.batchAttest({
        operatorKeypair,
        attestations: await batchItems(100, "counted 1"),
      });
      const firstRequests = proxy.takeCounts();
      const second = await counted.batchAttest({
        operatorKeypair,
        attestations: await batchItems(100, "counted 2"),
      });
      const secondRequests = proxy.takeCounts();
      // Then each batch fetched one blockhash for its root and its four leaf transactions
      assert.equal(firstRequests.getLatestBlockhash, 1);
      assert.equal(secondRequests.getLatestBlockhash, 1);
      assert.equal(firstRequests.sendTransaction, 5);
      assert.equal(secondRequests.sendTransaction, 5);
      // And only the first simulated its leaf transactions; the second simulated its root only when
      // its address's bump, on which the root's units depend, differs from the first's
      const bumpOf = async (result: BatchAttestationResult) =>
        (await deriveBatchAddress(ledger.programId, counted.agentAddress, hexToBytes(result.merkleRoot, 32)))
          .bump;
      assert.equal(firstRequests.simulateTransaction, 5);
      assert.equal(
        secondRequests.simulateTransaction ?? 0,
        (await bumpOf(first)) === (await bumpOf(second)) ? 0 : 1,
      );
      // And every receipt of the second verifies
      for (const receipt of second.receipts) assert.equal((await client.verifyReceipt(receipt)).valid, true);
    } finally {
      await proxy.close();
    }
  });

  it("counts the agent's batches and batch items", async () => {
    const agent = await client.getAgent();
    assert.equal(agent?.batchCount, 10);
    assert.equal(agent?.batchItemCount, 1 + 10 + 100 + 3 + 30 + 10 + 40 + 100 + 100 + 100);
  });
});

describe("a batch receipt's transaction, on a ledger whose slots last 20 s", () => {
  let ledger: TestLedger;
  after(async () => await ledger?.stop());

  it("must be the one that created the batch: its leaves' transaction of the same slot, naming the batch and the program, fails", async () => {
    // Given a batch whose root and leaves land in one slot
    ledger = await startTestLedger({ slotMs: 20_000 });
    const operatorKeypair = await fundedSecretKey(ledger, 10n * 1_000_000_000n);
    const client = new AttestationClient({
      rpcUrl: ledger.rpcUrl,
      agentKeypair: generateSecretKey(),
      programId: ledger.programId,
    });
    await client.registerAgent({ operatorKeypair });
    const result = await client.batchAttest({
      operatorKeypair,
      attestations: await batchItems(3, "one slot"),
    });
    const receipt = result.receipts[0]!;
    const signatures = await ledger.rpc.getSignaturesForAddress(address(receipt.batchAddress)).send();
    const leaves = signatures.find((entry) => entry.signature !== result.txSignature)!;
    assert.equal(Number(leaves.slot), receipt.slot, "the leaves' transaction is in the root's slot");
    // When a receipt names the leaves' transaction instead of the root's
    const verification = await client.verifyReceipt({ ...receipt, txSignature: leaves.signature });
    // Then its transaction check fails, naming why, and the receipt as it was verifies
    assert.deepEqual(verification.checks.transaction, {
      ok: false,
      reason:
        "the transaction has no attest_batch instruction of the program that creates this receipt's account",
    });
    assert.equal(verification.valid, false);
    assert.equal((await client.verifyReceipt(receipt)).valid, true);
  });
});
