/**
 * Two indexers on one database: exactly one leads and writes, the other follows; when the leader
 * is killed, or frozen with SIGSTOP while its connections stay open, the follower takes over and
 * continues where it stopped, and the frozen one, once resumed, writes nothing (the lease row's
 * fencing, on SQLite and PostgreSQL alike). Who applied what is read from the database
 * (`processed_transactions.applied_by`), never from log lines, which a process stopped or killed
 * between its commit and its log line would leave short.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { IndexerStateKey, type DatabaseHandle } from "@abas/db";

import {
  fundedOperator,
  newAgent,
  randomActionHash,
  type Agent,
  type Operator,
} from "./support/ledger-actors.js";
import { spawnIndexerProcess, type IndexerProcess } from "./support/indexer-process.js";
import { readDatabaseFacts, readLedgerFacts, readState, waitUntilCaughtUp } from "./support/ledger-truth.js";
import {
  createTestDatabase,
  DATABASE_KINDS,
  skipUnless,
  type TestDatabase,
} from "./support/test-databases.js";
import { startTestLedger, type TestLedger } from "./support/test-ledger.js";

/** The signatures of the transactions each indexer instance applied, as the database records them. */
async function appliedByInstance(database: DatabaseHandle): Promise<Map<string, Set<string>>> {
  const rows = await database.db
    .selectFrom("processed_transactions")
    .select(["signature", "applied_by"])
    .execute();
  const applied = new Map<string, Set<string>>();
  for (const row of rows)
    applied.set(row.applied_by, (applied.get(row.applied_by) ?? new Set()).add(row.signature));
  return applied;
}

async function attestSome(agent: Agent, operator: Operator, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await agent.client.attest({
      operatorKeypair: operator.secretKey,
      actionHash: randomActionHash(),
      actionType: "ToolCall",
    });
  }
}

for (const kind of DATABASE_KINDS) {
  describe(`leader election on ${kind}`, { skip: skipUnless(kind), timeout: 120_000 }, () => {
    let ledger: TestLedger;
    let testDatabase: TestDatabase;
    let database: DatabaseHandle;
    const processes: IndexerProcess[] = [];

    const indexerProcess = (): IndexerProcess => {
      const indexer = spawnIndexerProcess({
        rpcUrl: ledger.rpcUrl,
        wsUrl: ledger.wsUrl,
        programId: ledger.programId,
        databaseUrl: testDatabase.url,
      });
      processes.push(indexer);
      return indexer;
    };

    before(async () => {
      ledger = await startTestLedger();
      testDatabase = await createTestDatabase(kind);
      database = testDatabase.open();
    });

    after(async () => {
      await Promise.all(processes.map((indexer) => indexer.kill9()));
      await database?.close();
      await testDatabase?.dispose();
      await ledger?.dispose();
    });

    it("lets one indexer write while the other follows, and hands over when the leader is killed", async () => {
      // Given two indexers started one after the other on the same database
      const first = indexerProcess();
      const leading = await first.waitForLog("leading: indexing");
      const firstId = leading.instanceId as string;
      const second = indexerProcess();
      await second.waitForLog("another indexer leads; following");

      // When agents attest
      const operator = await fundedOperator(ledger);
      const agent = await newAgent(ledger, operator);
      await agent.client.registerAgent({ operatorKeypair: operator.secretKey });
      await attestSome(agent, operator, 5);
      await waitUntilCaughtUp(ledger, database);

      // Then only the leader wrote, and it is the one named in indexer_state
      assert.equal((await readState(database)).get(IndexerStateKey.Leader), leading.instanceId);
      const beforeKill = await appliedByInstance(database);
      assert.deepEqual([...beforeKill.keys()], [firstId]);
      assert.equal(second.logs().filter((line) => line.msg === "leading: indexing").length, 0);

      // When the leader is killed and the agents go on attesting
      await first.kill9();
      await attestSome(agent, operator, 5);

      // Then the follower takes over, applies only what the first did not, and the database is the ledger's
      const takeover = await second.waitForLog("leading: indexing", 20_000);
      const secondId = takeover.instanceId as string;
      await waitUntilCaughtUp(ledger, database);
      assert.equal((await readState(database)).get(IndexerStateKey.Leader), takeover.instanceId);
      const facts = await readDatabaseFacts(database);
      assert.deepEqual(facts, await readLedgerFacts(ledger));
      // (each transaction applied once, by the first or the second; the second only what the first did not)
      const afterKill = await appliedByInstance(database);
      assert.deepEqual([...afterKill.keys()].sort(), [firstId, secondId].sort());
      assert.deepEqual(afterKill.get(firstId), beforeKill.get(firstId));
      assert.ok(afterKill.get(secondId)!.size > 0);
      assert.equal(afterKill.get(firstId)!.size + afterKill.get(secondId)!.size, facts.transactions.total);
    });

    it("takes over from a frozen leader (SIGSTOP) within 15 s, and the leader, once resumed, writes nothing", async (t) => {
      // Given a leader and a follower (the previous test's indexers gone), and agents attesting
      await Promise.all(processes.splice(0).map((indexer) => indexer.kill9()));
      const first = indexerProcess();
      const leading = await first.waitForLog("leading: indexing");
      const second = indexerProcess();
      await second.waitForLog("another indexer leads; following");
      const operator = await fundedOperator(ledger);
      const agent = await newAgent(ledger, operator);
      await agent.client.registerAgent({ operatorKeypair: operator.secretKey });
      await attestSome(agent, operator, 3);
      await waitUntilCaughtUp(ledger, database);

      // When the leader freezes (its process stopped, its database connections still open) while
      // the agents go on attesting
      first.signal("SIGSTOP");
      const frozenAt = Date.now();
      await attestSome(agent, operator, 3);

      // Then the follower leads within 15 s and indexes what the frozen leader did not
      const takeover = await second.waitForLog("leading: indexing", 30_000);
      const failoverMs = Date.now() - frozenAt;
      assert.ok(failoverMs <= 15_000, `took over after ${failoverMs} ms`);
      await waitUntilCaughtUp(ledger, database);
      assert.equal((await readState(database)).get(IndexerStateKey.Leader), takeover.instanceId);

      // When the frozen leader resumes and the agents attest again
      const appliedBeforeResume = (await appliedByInstance(database)).get(leading.instanceId as string);
      assert.ok(appliedBeforeResume !== undefined && appliedBeforeResume.size > 0);
      first.signal("SIGCONT");
      await first.waitForLog("leadership lost", 20_000);
      await attestSome(agent, operator, 3);
      await waitUntilCaughtUp(ledger, database);

      // Then the stale leader applied nothing more, the new one everything else, each transaction once
      const applied = await appliedByInstance(database);
      assert.deepEqual(applied.get(leading.instanceId as string), appliedBeforeResume);
      assert.ok(applied.get(takeover.instanceId as string)!.size >= 6);
      const facts = await readDatabaseFacts(database);
      assert.deepEqual(facts, await readLedgerFacts(ledger));
      assert.equal((await readState(database)).get(IndexerStateKey.Leader), takeover.instanceId);
      t.diagnostic(`failover after SIGSTOP of the leader: ${failoverMs} ms (${kind})`);
    });
  });
}
