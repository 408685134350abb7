/**
 * Crashes of both processes under load: while agents attest through the SDK (singles and small
 * batches), the indexer and the ledger are each killed with SIGKILL at random moments, over and
 * over, and started again on the same data directories and ports. Afterwards every attestation
 * the SDK returned a confirmed receipt for is on the ledger and in the database exactly once, and
 * the database is exactly what the ledger says (getProgramAccounts through the ledger-truth helper).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import type { DatabaseHandle } from "@abas/db";

import {
  spawnIndexerProcess,
  type IndexerProcess,
} from "../packages/indexer/src/__tests__/support/indexer-process.js";
import {
  fundedOperator,
  newAgent,
  randomActionHash,
  type Agent,
} from "../packages/indexer/src/__tests__/support/ledger-actors.js";
import {
  readDatabaseFacts,
  readLedgerFacts,
  waitUntilCaughtUp,
} from "../packages/indexer/src/__tests__/support/ledger-truth.js";
import {
  createTestDatabase,
  type TestDatabase,
} from "../packages/indexer/src/__tests__/support/test-databases.js";
import { runSeed, seededRandom, sleep, startKillableLedger, type KillableLedger } from "./support.js";

const KILLS_EACH = Number(process.env.RELIABILITY_KILLS ?? 10);
const MAX_RUN_BEFORE_KILL_MS = 1_500;
const ACTION_TYPES = ["ToolCall", "Decision", "ModelInvocation"] as const;

type Tally = {
  singles: number;
  batches: number;
  batchItems: number;
  failedSends: number;
};

describe(
  "kill -9 of the indexer and of the ledger during a stream of attestations",
  { timeout: 600_000 },
  () => {
    let ledger: KillableLedger;
    let testDatabase: TestDatabase;
    let database: DatabaseHandle;
    let agents: Agent[];

    before(async () => {
      ledger = await startKillableLedger();
      testDatabase = await createTestDatabase("sqlite");
      database = testDatabase.open();
      const operator = await fundedOperator(ledger);
      agents = await Promise.all([
        newAgent(ledger, operator),
        newAgent(ledger, operator),
        newAgent(ledger, operator),
      ]);
      for (const agent of agents) {
        await agent.client.registerAgent({
          operatorKeypair: operator.secretKey,
          allowedActionTypes: [...ACTION_TYPES],
        });
      }
    });

    after(async () => {
      await database?.close();
      await testDatabase?.dispose();
      await ledger?.dispose();
    });

    it(`keeps every confirmed receipt exactly once after ${KILLS_EACH} kills of each process`, async (t) => {
      const seed = runSeed();
      const random = seededRandom(seed);
      t.diagnostic(`seed ${seed} (RELIABILITY_SEED=${seed} reproduces the kill schedule)`);
      const started = Date.now();
      const indexerProcess = (): IndexerProcess =>
        spawnIndexerProcess({
          rpcUrl: ledger.rpcUrl,
          wsUrl: ledger.wsUrl,
          programId: ledger.programId,
          databaseUrl: testDatabase.url,
        });

      // Given agents attesting through the SDK in the background, keeping each confirmed receipt
      const tally: Tally = { singles: 0, batches: 0, batchItems: 0, failedSends: 0 };
      const confirmedIds: string[] = [];
      const errors = new Map<string, number>();
      let stopping = false;
      const loop = async (agent: Agent): Promise<void> => {
        const operatorKeypair = agent.operator.secretKey;
        while (!stopping) {
          try {
            if (Math.random() < 0.6) {
              const receipt = await agent.client.attest({
                operatorKeypair,
                actionHash: randomActionHash(),
                actionType: ACTION_TYPES[Math.floor(Math.random() * 3)]!,
                privacyMode: Math.random() < 0.3,
              });
              confirmedIds.push(receipt.attestationAddress);
              tally.singles += 1;
            } else {
              const size = 2 + Math.floor(Math.random() * 3);
              const result = await agent.client.batchAttest({
                operatorKeypair,
                attestations: Array.from({ length: size }, () => ({
                  actionHash: randomActionHash(),
                  actionType: ACTION_TYPES[Math.floor(Math.random() * 3)]!,
                  privacyMode: Math.random() < 0.3,
                })),
              });
              for (const receipt of result.receipts)
                confirmedIds.push(`${receipt.batchAddress}:${receipt.index}`);
              tally.batches += 1;
              tally.batchItems += result.receipts.length;
            }
          } catch (error) {
            // The ledger was down: no receipt, so nothing is promised. Try again shortly.
            tally.failedSends += 1;
            const name = (error as Error).name + ": " + (error as Error).message.slice(0, 60);
            errors.set(name, (errors.get(name) ?? 0) + 1);
            await sleep(100);
          }
        }
      };
      const stream = Promise.all(agents.map(loop));

      // When the indexer and the ledger are each killed with SIGKILL at random moments, then restarted
      const indexerKills: number[] = [];
      const ledgerKills: number[] = [];
      let indexer = indexerProcess();
      try {
        for (let round = 0; round < KILLS_EACH; round++) {
          await indexer.waitForLog("leading: indexing", 60_000);
          let runMs = random.int(0, MAX_RUN_BEFORE_KILL_MS);
          await sleep(runMs);
          await indexer.kill9();
          indexerKills.push(runMs);
          indexer = indexerProcess();

          runMs = random.int(200, MAX_RUN_BEFORE_KILL_MS);
          await sleep(runMs);
          await ledger.kill9();
          ledgerKills.push(runMs);
          await sleep(random.int(0, 300));
          await ledger.start();
        }
        await sleep(2_000);
      } finally {
        stopping = true;
        await stream;
      }
      // ...and finally both are left to catch up
      try {
        await waitUntilCaughtUp(ledger, database, 120_000);
      } finally {
        await indexer.stop();
      }

      // Then each confirmed receipt's attestation is on the ledger and in the database exactly once,
      // nothing is duplicated, and the database equals the ledger's truth
      const ledgerFacts = await readLedgerFacts(ledger);
      const databaseFacts = await readDatabaseFacts(database);
      const count = (ids: readonly string[]): Map<string, number> => {
        const counts = new Map<string, number>();
        for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
        return counts;
      };
      const onLedger = count(ledgerFacts.attestations.map((row) => row.id));
      const inDatabase = count(databaseFacts.attestations.map((row) => row.id));
      assert.equal(
        new Set(confirmedIds).size,
        confirmedIds.length,
        "the SDK never returned the same receipt twice",
      );
      const missingOnLedger = confirmedIds.filter((id) => onLedger.get(id) !== 1);
      const missingInDatabase = confirmedIds.filter((id) => inDatabase.get(id) !== 1);
      assert.deepEqual(missingOnLedger, [], "confirmed receipts not on the ledger exactly once");
      assert.deepEqual(missingInDatabase, [], "confirmed receipts not in the database exactly once");
      assert.equal(inDatabase.size, databaseFacts.attestations.length, "no attestation row is duplicated");
      assert.equal(
        new Set(databaseFacts.attestations.map((row) => `${row.tx_signature}:${row.batch_index}`)).size,
        databaseFacts.attestations.length,
        "no transaction is applied twice",
      );
      assert.deepEqual(databaseFacts, ledgerFacts, `indexer killed after ${indexerKills.join(", ")} ms`);
      assert.equal(indexerKills.length, KILLS_EACH);
      assert.equal(ledgerKills.length, KILLS_EACH);
      assert.ok(tally.singles > 10 && tally.batches > 3, JSON.stringify(tally));

      t.diagnostic(
        `kills: ${indexerKills.length} indexer, ${ledgerKills.length} ledger; ` +
          `confirmed receipts ${confirmedIds.length} (singles ${tally.singles}, batches ${tally.batches} with ${tally.batchItems} items); ` +
          `sends that failed while the ledger was down ${tally.failedSends}; ` +
          `ledger: ${ledgerFacts.attestations.length} attestations, ${ledgerFacts.batches.length} batches ` +
          `(${ledgerFacts.batches.filter((b) => b.complete === 0).length} left incomplete), ` +
          `${ledgerFacts.transactions.total} program transactions (${ledgerFacts.transactions.failed} failed); ` +
          `${Math.round((Date.now() - started) / 1000)} s`,
      );
      t.diagnostic(`send errors: ${JSON.stringify([...errors.entries()].slice(0, 8))}`);
    });
  },
);
