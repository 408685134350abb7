import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";

import {
  ABAS_API__DATABASE_UNAVAILABLE,
  ABAS_API__INDEX_DIVERGED,
  ABAS_API__INDEXER_BEHIND,
  ABAS_API__INDEXER_NEVER_RAN,
  ABAS_API__INDEXER_STALE,
  ABAS_API__LEDGER_UNREACHABLE,
  ABAS_API__SHUTTING_DOWN,
} from "@abas/errors";
import { IndexerStateKey } from "@abas/db";
import { openTestDatabase, setIndexerState, testDatabaseTargets, type TestDatabase } from "@abas/db/testing";
import { startLedger, type RunningLedger } from "@abas/ledger";
import { refusedUrl } from "@abas/test-support";

import type { AppOptions } from "../app.js";
import { httpGet, startApiUnderTest, type ApiUnderTest } from "./support/api-under-test.js";

interface Health {
  status: "ok" | "degraded" | "unhealthy";
  causes: { code: number; name: string; detail: string }[];
  database: { status: string; dialect: string };
  ledger: { status: string; slot: number | null };
  indexer: {
    status: string;
    indexedSlot: number | null;
    lagSlots: number | null;
    lastIngestAt: string | null;
    heartbeatAt: string | null;
    divergence: string | null;
  };
}

async function ledgerSlot(rpcUrl: string): Promise<number> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSlot" }),
  });
  return ((await response.json()) as { result: number }).result;
}

for (const target of testDatabaseTargets()) {
  describe(`GET /api/v1/health on ${target.label}`, { skip: target.skip }, () => {
    let ledger: RunningLedger;
    let ledgerDir: string;
    let database: TestDatabase;
    let api: ApiUnderTest | undefined;

    before(async () => {
      // The real local ledger (the SVM behind a JSON-RPC server), slots every 50 ms
      ledgerDir = mkdtempSync(join(tmpdir(), "abas-health-ledger-"));
      ledger = await startLedger({
        dataDir: ledgerDir,
        rpcPort: 0,
        wsPort: 0,
        slotMs: 50,
        logLevel: "silent",
      });
    });
    after(async () => {
      await ledger?.stop();
      rmSync(ledgerDir, { recursive: true, force: true });
    });
    beforeEach(async () => {
      database = await openTestDatabase(target.dialect);
    });
    afterEach(async () => {
      await api?.close();
      api = undefined;
      await database.dispose().catch(() => undefined);
    });

    async function health(options: Partial<AppOptions> = {}): Promise<{ status: number; body: Health }> {
      api = await startApiUnderTest(database, { rpcUrl: ledger.rpcUrl, ...options });
      // No API key: the route is public
      const reply = await httpGet(`${api.baseUrl}/api/v1/health`);
      return { status: reply.status, body: reply.body as Health };
    }

    async function indexerCaughtUp(heartbeatAt = Date.now()): Promise<number> {
      const slot = await ledgerSlot(ledger.rpcUrl);
      await setIndexerState(database.db, {
        [IndexerStateKey.IndexedSlot]: slot,
        [IndexerStateKey.HeartbeatAt]: heartbeatAt,
        [IndexerStateKey.LastIngestAt]: heartbeatAt - 1000,
      });
      return slot;
    }

    it("is 200 when the database answers, the ledger answers and the indexer is fresh and in sync", async () => {
      const indexedSlot = await indexerCaughtUp();
      const { status, body } = await health();
      assert.equal(status, 200, JSON.stringify(body));
      assert.equal(body.status, "ok");
      assert.deepEqual(body.causes, []);
      assert.deepEqual(body.database, { status: "ok", dialect: target.dialect });
      assert.equal(body.ledger.status, "ok");
      assert.ok(body.ledger.slot! >= indexedSlot);
      assert.equal(body.indexer.status, "ok");
      assert.equal(body.indexer.indexedSlot, indexedSlot);
      assert.equal(body.indexer.lagSlots, body.ledger.slot! - indexedSlot);
      assert.ok(body.indexer.lastIngestAt && body.indexer.heartbeatAt);
    });

    it("is 503 naming ledger_unreachable when the RPC node does not answer", async () => {
      await indexerCaughtUp();
      const { status, body } = await health({ rpcUrl: await refusedUrl() });
      assert.equal(status, 503);
      assert.equal(body.status, "degraded");
      assert.deepEqual(body.causes, [
        {
          code: ABAS_API__LEDGER_UNREACHABLE,
          name: "ABAS_API__LEDGER_UNREACHABLE",
          detail: "The ledger RPC node does not answer getSlot: connection refused",
        },
      ]);
      assert.deepEqual(body.ledger, { status: "unreachable", slot: null });
      assert.equal(body.indexer.lagSlots, null);
    });

    it("is 503 naming indexer never ran when the indexer wrote nothing yet", async () => {
      const { status, body } = await health();
      assert.equal(status, 503);
      assert.deepEqual(
        body.causes.map((cause) => cause.code),
        [ABAS_API__INDEXER_NEVER_RAN],
      );
      assert.equal(body.indexer.status, "never_ran");
    });

    it("is 503 naming indexer stale when its last poll is too old", async () => {
      await indexerCaughtUp(Date.now() - 10 * 60_000);
      const { status, body } = await health();
      assert.equal(status, 503);
      assert.deepEqual(
        body.causes.map((cause) => cause.name),
        ["ABAS_API__INDEXER_STALE"],
      );
      assert.equal(body.causes[0]!.code, ABAS_API__INDEXER_STALE);
      assert.match(body.causes[0]!.detail, /last reported 60\d s ago \(stale after 60 s\)/);
    });

    it("is 503 naming indexer behind when the ledger is too far ahead", async () => {
      await setIndexerState(database.db, {
        [IndexerStateKey.IndexedSlot]: 0,
        [IndexerStateKey.HeartbeatAt]: Date.now(),
      });
      while ((await ledgerSlot(ledger.rpcUrl)) < 5) await delay(50);
      const { status, body } = await health({ health: { maxLagSlots: 2 } });
      assert.equal(status, 503);
      assert.deepEqual(
        body.causes.map((cause) => cause.code),
        [ABAS_API__INDEXER_BEHIND],
      );
      assert.equal(body.indexer.status, "behind");
    });

    it("is degraded, naming the cause, when the index holds data the ledger lost", async () => {
      // Given an indexer that found its checkpoint transaction missing from the ledger
      await indexerCaughtUp();
      await setIndexerState(database.db, {
        [IndexerStateKey.LedgerDivergence]: "transaction 5xY…abc (slot 42) is not on the ledger",
      });
      // When health is asked
      const { status, body } = await health();
      // Then it says so, and what repairs it
      assert.equal(status, 503);
      assert.equal(body.status, "degraded");
      assert.deepEqual(body.causes, [
        {
          code: ABAS_API__INDEX_DIVERGED,
          name: "ABAS_API__INDEX_DIVERGED",
          detail:
            "The index holds data the ledger does not (transaction 5xY…abc (slot 42) is not on the ledger): " +
            "rebuild it from the ledger with abas reindex",
        },
      ]);
      assert.equal(body.indexer.status, "ok");
      assert.equal(body.indexer.divergence, "transaction 5xY…abc (slot 42) is not on the ledger");
    });

    it("is 503 naming the database when it does not answer", async () => {
      await indexerCaughtUp();
      api = await startApiUnderTest(database, { rpcUrl: ledger.rpcUrl });
      await database.handle.close();
      const reply = await httpGet(`${api.baseUrl}/api/v1/health`);
      const body = reply.body as Health;
      assert.equal(reply.status, 503);
      assert.equal(body.status, "unhealthy");
      assert.deepEqual(
        body.causes.map((cause) => cause.code),
        [ABAS_API__DATABASE_UNAVAILABLE],
      );
      assert.deepEqual([body.database.status, body.indexer.status], ["unavailable", "unknown"]);
    });

    it("gives the ApiClient the report, healthy or not, without throwing", async () => {
      api = await startApiUnderTest(database, { rpcUrl: await refusedUrl() });
      const report = await api.client.health();
      assert.equal(report.status, "degraded");
      assert.deepEqual(
        report.causes.map((cause) => cause.code).sort(),
        [ABAS_API__INDEXER_NEVER_RAN, ABAS_API__LEDGER_UNREACHABLE].sort(),
      );
    });
  });
}

interface Readiness {
  status: "ready" | "not_ready";
  causes: { code: number; name: string; detail: string }[];
}

for (const target of testDatabaseTargets()) {
  describe(`GET /api/v1/ready on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let api: ApiUnderTest | undefined;
    beforeEach(async () => {
      database = await openTestDatabase(target.dialect);
    });
    afterEach(async () => {
      await api?.close();
      api = undefined;
      await database.dispose().catch(() => undefined);
    });

    it("is 200 while the ledger is down and the indexer never ran: shared dependencies do not pull a replica", async () => {
      // Given a replica whose ledger does not answer and whose indexer never ran
      api = await startApiUnderTest(database, { rpcUrl: await refusedUrl() });
      // When a load balancer asks health and readiness
      const health = await httpGet(`${api.baseUrl}/api/v1/health`);
      const ready = await httpGet(`${api.baseUrl}/api/v1/ready`);
      // Then health reports the service degraded, while this replica is ready to answer
      assert.equal(health.status, 503);
      assert.equal(ready.status, 200, ready.text);
      assert.deepEqual(ready.body, {
        status: "ready",
        causes: [],
        checkedAt: (ready.body as { checkedAt: string }).checkedAt,
      });
      assert.equal(ready.headers.get("cache-control"), "no-store");
    });

    it("is 503 naming the database when this replica cannot reach it", async () => {
      api = await startApiUnderTest(database);
      await database.handle.close();
      const ready = await httpGet(`${api.baseUrl}/api/v1/ready`);
      assert.equal(ready.status, 503);
      const body = ready.body as Readiness;
      assert.equal(body.status, "not_ready");
      assert.deepEqual(
        body.causes.map((cause) => cause.code),
        [ABAS_API__DATABASE_UNAVAILABLE],
      );
    });

    it("is 503 naming the shutdown as soon as the server starts draining, while other routes still answer", async () => {
      // Given a server that drains for 1.5 s before it stops listening
      api = await startApiUnderTest(database, {}, { drainDelayMs: 1_500 });
      const baseUrl = api.baseUrl;
      // When it is asked to close
      const closing = api.server.close();
      // Then readiness turns 503 at once, other requests are still served, each asking to close its connection
      const ready = await httpGet(`${baseUrl}/api/v1/ready`);
      assert.equal(ready.status, 503);
      assert.deepEqual(
        (ready.body as Readiness).causes.map((cause) => [cause.code, cause.name]),
        [[ABAS_API__SHUTTING_DOWN, "ABAS_API__SHUTTING_DOWN"]],
      );
      const ping = await httpGet(`${baseUrl}/api/v1/ping`);
      assert.equal(ping.status, 200);
      assert.equal(ping.headers.get("connection"), "close");
      // And once the drain is over the server is gone
      await closing;
      await assert.rejects(httpGet(`${baseUrl}/api/v1/ping`));
    });
  });
}
