import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";

import {
  ABAS_API__DATABASE_UNAVAILABLE,
  ABAS_API__INDEXER_BEHIND,
  ABAS_API__INDEXER_NEVER_RAN,
  ABAS_API__INDEXER_STALE,
  ABAS_API__LEDGER_UNREACHABLE,
} from "@abas/errors";
import { IndexerStateKey } from "@abas/db";
import { openTestDatabase, setIndexerState, testDatabaseTargets, type TestDatabase } from "@abas/db/testing";
import { startLedger, type RunningLedger } from "@abas/ledger";

import type { AppOptions } from "../app.js";
import { httpGet, startApiUnderTest, type ApiUnderTest } from "./support/api-under-test.js";

interface Health {
  status: "ok" | "unhealthy";
  causes: { code: number; name: string; detail: string }[];
  database: { status: string; dialect: string };
  ledger: { status: string; slot: number | null };
  indexer: {
    status: string;
    indexedSlot: number | null;
    lagSlots: number | null;
    lastIngestAt: string | null;
    heartbeatAt: string | null;
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

/** A port that was just free: connecting to it is refused. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
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
      const { status, body } = await health({ rpcUrl: await closedPortUrl() });
      assert.equal(status, 503);
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

    it("is 503 naming the database when it does not answer", async () => {
      await indexerCaughtUp();
      api = await startApiUnderTest(database, { rpcUrl: ledger.rpcUrl });
      await database.handle.close();
      const reply = await httpGet(`${api.baseUrl}/api/v1/health`);
      const body = reply.body as Health;
      assert.equal(reply.status, 503);
      assert.deepEqual(
        body.causes.map((cause) => cause.code),
        [ABAS_API__DATABASE_UNAVAILABLE],
      );
      assert.deepEqual([body.database.status, body.indexer.status], ["unavailable", "unknown"]);
    });

    it("gives the ApiClient the report, healthy or not, without throwing", async () => {
      api = await startApiUnderTest(database, { rpcUrl: await closedPortUrl() });
      const report = await api.client.health();
      assert.equal(report.status, "unhealthy");
      assert.deepEqual(
        report.causes.map((cause) => cause.code).sort(),
        [ABAS_API__INDEXER_NEVER_RAN, ABAS_API__LEDGER_UNREACHABLE].sort(),
      );
    });
  });
}
