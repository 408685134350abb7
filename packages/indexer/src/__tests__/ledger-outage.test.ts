/**
 * A ledger that goes away: the indexer records the error and keeps retrying; when the ledger is
 * back (the same data and ports), it catches up on what happened meanwhile. A different ledger
 * (one started again from genesis) is refused until the database is rebuilt from it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { IndexerStateKey, type DatabaseHandle } from "@abas/db";

import { createIndexerLogger, reindex, startIndexer, type RunningIndexer } from "../index.js";
import {
  fundedOperator,
  newAgent,
  randomActionHash,
  type Agent,
  type Operator,
} from "./support/ledger-actors.js";
import { readDatabaseFacts, readLedgerFacts, readState, waitUntilCaughtUp } from "./support/ledger-truth.js";
import {
  createTestDatabase,
  DATABASE_KINDS,
  skipUnless,
  type TestDatabase,
} from "./support/test-databases.js";
import { startTestLedger, type TestLedger } from "./support/test-ledger.js";

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

for (const kind of DATABASE_KINDS) {
  describe(`ledger outage on ${kind}`, { skip: skipUnless(kind), timeout: 120_000 }, () => {
    let ledger: TestLedger;
    let testDatabase: TestDatabase;
    let database: DatabaseHandle;
    let indexer: RunningIndexer;
    let operator: Operator;
    let agent: Agent;

    before(async () => {
      ledger = await startTestLedger();
      testDatabase = await createTestDatabase(kind);
      database = testDatabase.open();
      indexer = await startIndexer({
        rpcUrl: ledger.rpcUrl,
        wsUrl: ledger.wsUrl,
        programId: ledger.programId,
        database,
        pollIntervalMs: 200,
        firstBackoffMs: 100,
        maxBackoffMs: 400,
        logger: createIndexerLogger("silent"),
      });
      operator = await fundedOperator(ledger);
      agent = await newAgent(ledger, operator);
      await agent.client.registerAgent({ operatorKeypair: operator.secretKey });
      await agent.client.attest({
        operatorKeypair: operator.secretKey,
        actionHash: randomActionHash(),
        actionType: "Decision",
      });
      await waitUntilCaughtUp(ledger, database);
    });

    after(async () => {
      await indexer?.stop();
      await database?.close();
      await testDatabase?.dispose();
      await ledger?.dispose();
    });

    it("records the error while the ledger is down, keeps retrying, and catches up when it is back", async () => {
      // Given an indexer that is up to date
      assert.equal((await readState(database)).get(IndexerStateKey.LastError), "");

      // When the ledger stops
      await ledger.stop();

      // Then the indexer records why it cannot poll, and keeps trying
      const firstErrorAt = await waitFor("LastError", async () => {
        const state = await readState(database);
        return state.get(IndexerStateKey.LastError)
          ? Number(state.get(IndexerStateKey.LastErrorAt))
          : undefined;
      });
      const state = await readState(database);
      assert.match(state.get(IndexerStateKey.LastError)!, /ECONNREFUSED|fetch failed|connect/i);
      await waitFor("another failed attempt", async () => {
        const at = Number((await readState(database)).get(IndexerStateKey.LastErrorAt));
        return at > firstErrorAt ? at : undefined;
      });
      assert.notEqual(indexer.status().lastError, undefined);
      assert.equal(indexer.status().role, "leader");

      // When the ledger comes back on the same data and ports, and the agent attests again
      await ledger.restart();
      const receipt = await agent.client.attest({
        operatorKeypair: operator.secretKey,
        actionHash: randomActionHash(),
        actionType: "ToolCall",
      });

      // Then the new attestation is indexed, the error is cleared, and the database equals the ledger
      await waitUntilCaughtUp(ledger, database);
      const row = await database.db
        .selectFrom("attestations")
        .select("tx_signature")
        .where("id", "=", receipt.attestationAddress)
        .executeTakeFirst();
      assert.equal(row?.tx_signature, receipt.txSignature);
      await waitFor("the error to clear", async () =>
        (await readState(database)).get(IndexerStateKey.LastError) === "" ? true : undefined,
      );
      assert.equal(indexer.status().lastError, undefined);
      assert.deepEqual(await readDatabaseFacts(database), await readLedgerFacts(ledger));
    });

    it("refuses to mix in another ledger's history, until reindexed from it", async () => {
      // Given the database built from the first ledger, and a second ledger started from genesis
      await indexer.stop();
      const fromFirstLedger = await readDatabaseFacts(database);
      const other = await startTestLedger();
      try {
        const otherAgent = await newAgent(other, await fundedOperator(other));
        await otherAgent.client.registerAgent({ operatorKeypair: otherAgent.operator.secretKey });

        // When an indexer is pointed at the second ledger
        indexer = await startIndexer({
          rpcUrl: other.rpcUrl,
          wsUrl: other.wsUrl,
          programId: other.programId,
          database,
          pollIntervalMs: 200,
          firstBackoffMs: 100,
          maxBackoffMs: 400,
          logger: createIndexerLogger("silent"),
        });

        // Then it applies nothing and says how to fix it
        const error = await waitFor("the mismatch error", async () => {
          const lastError = (await readState(database)).get(IndexerStateKey.LastError);
          return lastError ? lastError : undefined;
        });
        assert.match(error, /is not the one this database was built from.*abas-indexer reindex/);
        assert.deepEqual(await readDatabaseFacts(database), fromFirstLedger);

        // When the database is rebuilt from the second ledger
        await indexer.stop();
        const summary = await reindex({
          rpcUrl: other.rpcUrl,
          programId: other.programId,
          database,
          logger: createIndexerLogger("silent"),
        });

        // Then it holds the second ledger's history only
        const facts = await readLedgerFacts(other);
        assert.equal(summary.transactions, facts.transactions.total);
        assert.deepEqual(await readDatabaseFacts(database), facts);
      } finally {
        await other.dispose();
      }
    });
  });
}
