/**
 * A node lists the transactions of one slot in an order of its own (a cluster's, by signature), not
 * the order they ran: a batch's commit and its chunks of leaves that land in one slot may be listed
 * leaves first. The indexer must index every batch all the same. The ledger's slots last 20 s, so a
 * batch's transactions share one; a proxy in front of it lists each slot's transactions in reverse,
 * the worst such order (a fault injected on purpose, as a cluster's node answers).
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";

import type { DatabaseHandle } from "@abas/db";
import { ActionType, type LeafData } from "@abas/program-client";

import { commitBatch, fundedOperator, newAgent, publishLeaves } from "./support/ledger-actors.js";
import { readDatabaseFacts, readLedgerFacts } from "./support/ledger-truth.js";
import { indexerBehindProxy, type RpcAnswer, type RpcCall } from "./support/rewriting-rpc-proxy.js";
import {
  createTestDatabase,
  DATABASE_KINDS,
  skipUnless,
  type TestDatabase,
} from "./support/test-databases.js";
import { startTestLedger, type TestLedger } from "./support/test-ledger.js";

type SignatureEntry = { signature: string; slot: number };

/** Each slot's entries of a `getSignaturesForAddress` answer in reverse, the slots in their order. */
function reversedWithinSlots(call: RpcCall, answer: RpcAnswer): RpcAnswer {
  if (call.method !== "getSignaturesForAddress" || !Array.isArray(answer.result)) return answer;
  const slots = new Map<number, SignatureEntry[]>();
  for (const entry of answer.result as SignatureEntry[])
    slots.set(entry.slot, [...(slots.get(entry.slot) ?? []), entry]);
  return { ...answer, result: [...slots.values()].flatMap((slot) => slot.reverse()) };
}

const leaves = (count: number): LeafData[] =>
  Array.from({ length: count }, () => ({
    actionType: ActionType.ToolCall,
    privacyMode: false,
    storedHash: Uint8Array.from(randomBytes(32)),
  }));

for (const kind of DATABASE_KINDS) {
  describe(
    `batches whose transactions share a slot, listed out of order, into ${kind}`,
    { skip: skipUnless(kind) },
    () => {
      let ledger: TestLedger;
      let testDatabase: TestDatabase;
      let database: DatabaseHandle;
      let proxied: Awaited<ReturnType<typeof indexerBehindProxy>> | undefined;

      before(async () => {
        ledger = await startTestLedger({ slotMs: 20_000 });
        testDatabase = await createTestDatabase(kind);
        database = testDatabase.open();
      });
      after(async () => {
        await proxied?.stop();
        await database?.close();
        await testDatabase?.dispose();
        await ledger?.dispose();
      });

      it("indexes every batch and item, as the ledger holds them", async () => {
        // Given two agents' batches, each committed then published in two chunks, in one slot
        const operator = await fundedOperator(ledger);
        for (const count of [5, 3]) {
          const agent = await newAgent(ledger, operator);
          await agent.client.registerAgent({ operatorKeypair: operator.secretKey });
          const batch = await commitBatch(ledger, agent, leaves(count));
          await publishLeaves(ledger, agent, batch, 0, 2);
          await publishLeaves(ledger, agent, batch, 2, count - 2);
        }
        const truth = await readLedgerFacts(ledger);
        const slots = new Set(truth.batches.map((batch) => batch.slot));
        assert.equal(slots.size, 1, "the batches share a slot");
        // When the indexer reads the ledger through a node that lists each slot in reverse
        proxied = await indexerBehindProxy(ledger, database, reversedWithinSlots);
        const deadline = Date.now() + 30_000;
        while ((await readDatabaseFacts(database)).transactions.total < truth.transactions.total) {
          assert.ok(Date.now() < deadline, "the indexer did not apply every transaction within 30 s");
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        // Then the index holds what the ledger holds: both batches complete, their 8 items
        const indexed = await readDatabaseFacts(database);
        assert.deepEqual(indexed.batches, truth.batches);
        assert.equal(indexed.attestations.filter((row) => row.kind === "batch").length, 8);
        assert.deepEqual(indexed.attestations, truth.attestations);
      });
    },
  );
}
