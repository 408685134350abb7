/**
 * Exactly-once under crashes: the indexer process is killed with SIGKILL at random moments, over
 * and over, while agents keep attesting; once it has caught up, the database is exactly what the
 * ledger says. Then a reindex from scratch rebuilds the same rows.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import type { DatabaseHandle } from "@abas/db";

import { fundedOperator, newAgent, type Agent } from "./support/ledger-actors.js";
import { startAttestationStream } from "./support/attestation-stream.js";
import { spawnIndexerProcess } from "./support/indexer-process.js";
import { readDatabaseFacts, readLedgerFacts, waitUntilCaughtUp } from "./support/ledger-truth.js";
import {
  createTestDatabase,
  DATABASE_KINDS,
  skipUnless,
  type TestDatabase,
} from "./support/test-databases.js";
import { startTestLedger, type TestLedger } from "./support/test-ledger.js";

const KILLS = 20;
const MAX_RUN_BEFORE_KILL_MS = 900;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

for (const kind of DATABASE_KINDS) {
  describe(`crash recovery and reindex on ${kind}`, { skip: skipUnless(kind), timeout: 240_000 }, () => {
    let ledger: TestLedger;
    let testDatabase: TestDatabase;
    let database: DatabaseHandle;
    let agents: Agent[];

    const indexerProcess = (command: "run" | "reindex" = "run") =>
      spawnIndexerProcess({
        rpcUrl: ledger.rpcUrl,
        wsUrl: ledger.wsUrl,
        programId: ledger.programId,
        databaseUrl: testDatabase.url,
        command,
      });

    before(async () => {
      ledger = await startTestLedger();
      testDatabase = await createTestDatabase(kind);
      database = testDatabase.open();
      const operator = await fundedOperator(ledger);
      agents = await Promise.all([newAgent(ledger, operator), newAgent(ledger, operator)]);
      for (const agent of agents) {
        await agent.client.registerAgent({
          operatorKeypair: operator.secretKey,
          allowedActionTypes: ["ToolCall", "Decision", "ModelInvocation"],
        });
      }
    });

    after(async () => {
      await database?.close();
      await testDatabase?.dispose();
      await ledger?.dispose();
    });

    it(`matches the ledger exactly after ${KILLS} kill -9 at random points during a stream of attestations`, async (t) => {
      // Given agents attesting singles, small batches and refused actions in the background
      const stream = startAttestationStream(ledger, agents);
      const killedAfterMs: number[] = [];
      try {
        // When the indexer is killed with SIGKILL at a random moment of its work, again and again
        for (let kill = 0; kill < KILLS; kill++) {
          const indexer = indexerProcess();
          await indexer.waitForLog("leading: indexing");
          // Squared: more kills early, while the backlog of the downtime is being applied.
          const runMs = Math.floor(Math.random() ** 2 * MAX_RUN_BEFORE_KILL_MS);
          await sleep(runMs);
          await indexer.kill9();
          killedAfterMs.push(runMs);
        }
      } finally {
        await stream.stop();
      }
      // ...and finally left to catch up
      const indexer = indexerProcess();
      try {
        await waitUntilCaughtUp(ledger, database, 60_000);
      } finally {
        await indexer.stop();
      }

      // Then every attestation account has exactly one equal row, batch items are the published
      // leaves, and the agents' counters and refusals are the ledger's
      const ledgerFacts = await readLedgerFacts(ledger);
      const databaseFacts = await readDatabaseFacts(database);
      assert.ok(
        stream.counts.singles > 20 && stream.counts.batches > 5 && stream.counts.refusals > 0,
        JSON.stringify(stream.counts),
      );
      assert.equal(
        ledgerFacts.attestations.length,
        stream.counts.singles + stream.counts.batchItems,
        "the stream's attestations are all on the ledger",
      );
      assert.deepEqual(databaseFacts, ledgerFacts, `killed after ${killedAfterMs.join(", ")} ms`);
      t.diagnostic(
        `${ledgerFacts.transactions.total} program transactions (${ledgerFacts.transactions.failed} failed), ` +
          `${ledgerFacts.attestations.length} attestations; stream ${JSON.stringify(stream.counts)}`,
      );
    });

    it("rebuilds the same rows with reindex, keeping the API keys", async (t) => {
      // Given the indexed database and an API key
      await database.db
        .insertInto("api_keys")
        .values({
          id: "key-1",
          name: "ci",
          prefix: "abas_ci",
          key_hash: "00".repeat(32),
          owner: "cli",
          created_at: 1,
          last_used_at: null,
          revoked_at: null,
        })
        .execute();
      const indexed = await readDatabaseFacts(database);

      // When it is rebuilt from the ledger alone
      const reindex = indexerProcess("reindex");
      assert.equal(await reindex.exited, 0, reindex.output().join("\n"));

      // Then the rows are the same, the progress was shown, and the API key is still there
      assert.deepEqual(await readDatabaseFacts(database), indexed);
      const total = indexed.transactions.total;
      assert.ok(
        reindex.output().some((line) => line.startsWith(`reindex: ${total}/${total} transactions (100%)`)),
        reindex.output().join("\n"),
      );
      assert.ok(reindex.output().some((line) => line.startsWith(`reindexed ${total} transactions in`)));
      t.diagnostic(reindex.output().at(-1) ?? "");
      const keys = await database.db.selectFrom("api_keys").select("id").execute();
      assert.deepEqual(keys, [{ id: "key-1" }]);
    });
  });
}
