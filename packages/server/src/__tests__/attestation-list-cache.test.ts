/**
 * The attestation list's response cache and conditional GETs: a row the indexer commits is served
 * once the stated staleness bound has passed, ETags change with the page, If-None-Match gets a 304.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";

import { ApiAttestationPage, findContractMismatch } from "@abas/api-contract";
import { IndexerStateKey } from "@abas/db";
import {
  buildAttestation,
  openTestDatabase,
  randomAddress,
  randomSignature,
  setIndexerState,
  testDatabaseTargets,
  type TestDatabase,
} from "@abas/db/testing";

import { DEFAULT_LIST_MAX_STALENESS_MS } from "../defaults.js";
import { startApiUnderTest, type ApiUnderTest, type HttpReply } from "./support/api-under-test.js";

const T = 1_765_000_000;
const BOUND_MS = 100;

interface Page {
  data: { id: string; slot: number }[];
}

const idsOf = (reply: HttpReply): string[] => (reply.body as Page).data.map((item) => item.id);

for (const target of testDatabaseTargets()) {
  describe(`the attestation list's cache on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let api: ApiUnderTest;
    let clock = 5_000_000;
    let slot = 100;
    const agent = randomAddress();

    /** A row committed the way the indexer does (with its checkpoint), in a newer slot than any before. */
    async function indexNewRow(): Promise<string> {
      const row = buildAttestation({ slot: ++slot, timestamp: T + slot, agent });
      await database.db.transaction().execute(async (trx) => {
        await trx.insertInto("attestations").values(row).execute();
        await setIndexerState(trx, { [IndexerStateKey.CursorSignature]: randomSignature() });
      });
      return row.id;
    }

    before(async () => {
      database = await openTestDatabase(target.dialect);
      // A clock the test moves: the bound is checked without waiting.
      api = await startApiUnderTest(database, { listMaxStalenessMs: BOUND_MS, now: () => clock });
      await indexNewRow();
    });
    after(async () => {
      await api?.close();
      await database?.dispose();
    });

    it(`serves a row the indexer committed once ${BOUND_MS} ms have passed, in every cached listing`, async () => {
      // Given the first page and the agent's page are cached
      const paths = ["/attestations?limit=5", `/attestations?limit=5&agent=${agent}`];
      for (const path of paths) assert.equal((await api.get(path)).status, 200);
      // When the indexer commits a newer row
      const id = await indexNewRow();
      // Then, once the bound has passed, each page starts with it
      clock += BOUND_MS + 1;
      for (const path of paths) {
        const reply = await api.get(path);
        assert.equal(reply.status, 200, reply.text);
        assert.equal(idsOf(reply)[0], id, path);
      }
    });

    it("serves a row the indexer committed after the clock went back, without waiting for it to catch up", async () => {
      // Given the first page cached
      const path = "/attestations?limit=5";
      assert.equal((await api.get(path)).status, 200);
      // When the clock steps back an hour and the indexer commits a newer row
      clock -= 3_600_000;
      const id = await indexNewRow();
      // Then the page starts with it at once
      assert.equal(idsOf(await api.get(path))[0], id);
    });

    it(
      "serves a row whose seq committed after a higher one once the bound has passed",
      {
        skip:
          target.dialect === "sqlite"
            ? "SQLite has one writer at a time: rows commit in seq order"
            : undefined,
      },
      async () => {
        // Given two racing indexer transactions: the first takes a sequence value and holds
        let firstInserted!: () => void;
        const inserted = new Promise<void>((resolve) => (firstInserted = resolve));
        let releaseFirst!: () => void;
        const held = new Promise<void>((resolve) => (releaseFirst = resolve));
        const late = buildAttestation({ slot: ++slot, timestamp: T + slot, agent });
        const lateCommit = database.db.transaction().execute(async (trx) => {
          await trx.insertInto("attestations").values(late).execute();
          firstInserted();
          await held;
          await setIndexerState(trx, { [IndexerStateKey.CursorSignature]: randomSignature() });
        });
        await inserted;
        // and the second, with a higher seq, commits first and is served
        const early = await indexNewRow();
        clock += BOUND_MS + 1;
        const path = "/attestations?limit=3";
        assert.equal(idsOf(await api.get(path))[0], early);
        // When the first commits, the highest seq unchanged
        releaseFirst();
        await lateCommit;
        clock += BOUND_MS + 1;
        // Then its row is served too
        assert.deepEqual(idsOf(await api.get(path)).slice(0, 2), [early, late.id]);
      },
    );

    it("answers If-None-Match with the current ETag by 304 without a body, and with 200 after a write", async () => {
      const path = "/attestations?limit=2";
      const first = await api.get(path);
      const etag = first.headers.get("etag");
      assert.match(etag ?? "", /^"[A-Za-z0-9_-]{27}"$/);
      assert.equal(first.headers.get("cache-control"), "private, no-cache");
      // The same page, conditionally: not modified, no body, the same tag
      const headers = { authorization: `Bearer ${api.apiKey}`, "if-none-match": etag! };
      const notModified = await api.get(path, headers);
      assert.equal(notModified.status, 304);
      assert.equal(notModified.text, "");
      assert.equal(notModified.headers.get("etag"), etag);
      // A weak or listed match counts too (RFC 9110's weak comparison)
      assert.equal((await api.get(path, { ...headers, "if-none-match": `"x", W/${etag}` })).status, 304);
      // After the indexer writes a newer row: the full page again, under a new tag
      const id = await indexNewRow();
      clock += BOUND_MS + 1;
      const changed = await api.get(path, headers);
      assert.equal(changed.status, 200, changed.text);
      assert.notEqual(changed.headers.get("etag"), etag);
      assert.equal(idsOf(changed)[0], id);
    });

    it("serves cached pages that match the contract, byte for byte what the uncached route serves", async () => {
      const path = "/attestations?limit=4";
      const miss = await api.get(path);
      const hit = await api.get(path);
      assert.equal(hit.text, miss.text);
      assert.equal(hit.headers.get("content-type"), "application/json; charset=utf-8");
      assert.equal(findContractMismatch(ApiAttestationPage, hit.body), undefined);
      // A server without a staleness allowance builds the page on each request: the same bytes
      const uncached = await startApiUnderTest(database, { listMaxStalenessMs: 0 });
      try {
        assert.equal((await uncached.get(path)).text, miss.text);
      } finally {
        await uncached.close();
      }
    });

    it("never answers a cached page to a request without a valid key", async () => {
      const reply = await api.get("/attestations?limit=5", {});
      assert.equal(reply.status, 401);
    });

    it(`serves a committed row after the default bound (${DEFAULT_LIST_MAX_STALENESS_MS} ms) on the real clock`, async () => {
      const realClock = await startApiUnderTest(database);
      try {
        const path = "/attestations?limit=1";
        assert.equal((await realClock.get(path)).status, 200);
        const id = await indexNewRow();
        await delay(DEFAULT_LIST_MAX_STALENESS_MS + 1);
        assert.deepEqual(idsOf(await realClock.get(path)), [id]);
      } finally {
        await realClock.close();
      }
    });
  });
}
