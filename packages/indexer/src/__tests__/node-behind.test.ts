/**
 * A load-balanced RPC may answer from a node that is behind: asked whether the newest transaction
 * the index applied is on the ledger, it answers "no such transaction" as of an older slot. That is
 * no divergence: the poll fails, is retried, and indexing goes on (a fault injected on purpose, by a
 * proxy in front of the real ledger).
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";

import { IndexerStateKey, type DatabaseHandle } from "@abas/db";

import { fundedOperator, newAgent, type Agent, type Operator } from "./support/ledger-actors.js";
import { readState } from "./support/ledger-truth.js";
import { indexerBehindProxy, type RpcAnswer, type RpcCall } from "./support/rewriting-rpc-proxy.js";
import { createTestDatabase, type TestDatabase } from "./support/test-databases.js";
import { startTestLedger, type TestLedger } from "./support/test-ledger.js";

describe("a node behind answering for the ledger", () => {
  let ledger: TestLedger;
  let testDatabase: TestDatabase;
  let database: DatabaseHandle;
  let proxied: Awaited<ReturnType<typeof indexerBehindProxy>>;
  let operator: Operator;
  let agent: Agent;
  let answersBehind = 0;

  /** The next status asks are answered as a node at slot 1 would: it does not know the transaction yet. */
  const behind = (call: RpcCall, answer: RpcAnswer): RpcAnswer => {
    if (call.method !== "getSignatureStatuses" || answersBehind === 0) return answer;
    answersBehind -= 1;
    return { ...answer, result: { context: { slot: 1 }, value: [null] } };
  };

  before(async () => {
    ledger = await startTestLedger();
    testDatabase = await createTestDatabase("sqlite");
    database = testDatabase.open();
    proxied = await indexerBehindProxy(ledger, database, behind);
    operator = await fundedOperator(ledger);
    agent = await newAgent(ledger, operator);
    await agent.client.registerAgent({ operatorKeypair: operator.secretKey });
  });
  after(async () => {
    await proxied?.stop();
    await database?.close();
    await testDatabase?.dispose();
    await ledger?.dispose();
  });

  const attest = () =>
    agent.client.attest({
      operatorKeypair: operator.secretKey,
      actionHash: randomBytes(32).toString("hex"),
      actionType: "ToolCall",
    });

  async function indexed(count: number): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const rows = await database.db.selectFrom("attestations").select("id").execute();
      if (rows.length >= count) return;
      assert.ok(Date.now() < deadline, `${rows.length} of ${count} attestations indexed within 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it("records no divergence, names the node behind while it is, and goes on indexing", async () => {
    // Given an indexed attestation
    await attest();
    await indexed(1);
    // When the node answers from behind for the next three polls, and more attestations land
    answersBehind = 3;
    const failures = new Set<string>();
    while (answersBehind > 0) {
      const error = (await readState(database)).get(IndexerStateKey.LastError);
      if (error !== undefined && error !== "") failures.add(error);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await attest();
    await attest();
    await indexed(3);
    // Then the poll failed, saying why, and no divergence was recorded
    const state = await readState(database);
    assert.equal(state.get(IndexerStateKey.LedgerDivergence) ?? "", "");
    assert.ok(
      [...failures, state.get(IndexerStateKey.LastError) ?? ""].some((error) =>
        /answered as of slot 1, before slot \d+ of the newest transaction the index applied/.test(error),
      ),
      `last errors seen: ${[...failures].join(" | ")}`,
    );
  });
});
