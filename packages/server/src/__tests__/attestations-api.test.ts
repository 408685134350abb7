import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";

import { ABAS_API__ATTESTATION_NOT_FOUND, isAbasError } from "@abas/errors";
import {
  buildAttestation,
  openTestDatabase,
  randomAddress,
  randomSignature,
  seedAttestations,
  seedBatch,
  testDatabaseTargets,
  type TestDatabase,
} from "@abas/db/testing";
import type { NewAttestationRow } from "@abas/db";

import { problemOf, startApiUnderTest, type ApiUnderTest } from "./support/api-under-test.js";

const T = 1_765_000_000;
const HOUR = 3_600;

interface Page {
  data: { id: string; slot: number }[];
  pagination: { nextCursor: string | null; hasMore: boolean };
}

for (const target of testDatabaseTargets()) {
  describe(`GET /api/v1/attestations on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let api: ApiUnderTest;
    // A fixed data set for the filter tests, apart from the pagination test's rows by agent.
    const alice = randomAddress();
    const bob = randomAddress();
    const operator = randomAddress();
    let rows: NewAttestationRow[];
    let batchItems: NewAttestationRow[];

    before(async () => {
      database = await openTestDatabase(target.dialect);
      api = await startApiUnderTest(database);
      rows = [
        buildAttestation({ slot: 1, timestamp: T, agent: alice, operator, action_type: "Transaction" }),
        buildAttestation({
          slot: 2,
          timestamp: T + HOUR,
          agent: alice,
          operator,
          action_type: "ToolCall",
          privacy: 1,
        }),
        buildAttestation({ slot: 3, timestamp: T + 2 * HOUR, agent: bob, action_type: "ToolCall" }),
        buildAttestation({
          slot: 4,
          timestamp: T + 3 * HOUR,
          agent: bob,
          action_type: "ModelInvocation",
          privacy: 1,
        }),
      ];
      await seedAttestations(database.db, rows);
      ({ items: batchItems } = await seedBatch(database.db, {
        agent: alice,
        operator,
        slot: 5,
        timestamp: T + 4 * HOUR,
        itemCount: 3,
        actionTypes: ["Decision"],
      }));
    });
    after(async () => {
      await api?.close();
      await database?.dispose();
    });

    const idsOf = (...selected: NewAttestationRow[]) => new Set(selected.map((row) => row.id));
    async function idsFor(search: string): Promise<Set<string>> {
      const reply = await api.get(`/attestations?limit=100&${search}`);
      assert.equal(reply.status, 200, reply.text);
      return new Set((reply.body as Page).data.map((item) => item.id));
    }

    it("answers the first page with data and pagination, newest first, default 20", async () => {
      const reply = await api.get("/attestations");
      assert.equal(reply.status, 200);
      assert.match(reply.headers.get("content-type") ?? "", /^application\/json/);
      const page = reply.body as Page;
      assert.deepEqual(
        page.data.map((item) => item.id),
        [...batchItems]
          .reverse()
          .map((row) => row.id)
          .concat([...rows].reverse().map((row) => row.id)),
      );
      assert.deepEqual(page.pagination, { nextCursor: null, hasMore: false });
    });

    it("filters by agent, operator, actionType, privacy, since/until and batch, alone and combined", async () => {
      const [a0, a1, b0, b1] = rows as [
        NewAttestationRow,
        NewAttestationRow,
        NewAttestationRow,
        NewAttestationRow,
      ];
      assert.deepEqual(await idsFor(`agent=${alice}`), idsOf(a0, a1, ...batchItems));
      assert.deepEqual(await idsFor(`operator=${operator}`), idsOf(a0, a1, ...batchItems));
      assert.deepEqual(await idsFor("actionType=ToolCall"), idsOf(a1, b0));
      assert.deepEqual(await idsFor("privacy=true"), idsOf(a1, b1));
      assert.deepEqual(await idsFor("privacy=false"), idsOf(a0, b0, ...batchItems));
      assert.deepEqual(await idsFor(`since=${T + HOUR}&until=${T + 3 * HOUR}`), idsOf(a1, b0));
      assert.deepEqual(await idsFor(`batch=${batchItems[0]!.batch_address}`), idsOf(...batchItems));
      assert.deepEqual(await idsFor(`agent=${bob}&privacy=true`), idsOf(b1));
      assert.deepEqual(
        await idsFor(`agent=${alice}&actionType=Decision&privacy=false`),
        idsOf(...batchItems),
      );
    });

    it("finds the attestations that store a given hash, singles and batch items alike", async () => {
      // Given a hash that two agents attested, and a batch whose items have their own hashes
      const storedHash = rows[2]!.stored_hash;
      const sameHash = buildAttestation({
        slot: 6,
        timestamp: T + 5 * HOUR,
        agent: alice,
        stored_hash: storedHash,
      });
      await seedAttestations(database.db, [sameHash]);
      // Then the storedHash filter finds both attestations, alone and with other filters, and batch items too
      assert.deepEqual(await idsFor(`storedHash=${storedHash}`), idsOf(rows[2]!, sameHash));
      assert.deepEqual(await idsFor(`storedHash=${storedHash}&agent=${bob}`), idsOf(rows[2]!));
      const item = batchItems[1]!;
      assert.deepEqual(await idsFor(`storedHash=${item.stored_hash}`), idsOf(item));
      assert.deepEqual(await idsFor(`storedHash=${"0".repeat(64)}`), new Set());
      const page = await api.client.listAttestations({ storedHash: item.stored_hash });
      assert.deepEqual(
        page.data.map((record) => record.batch?.index),
        [item.batch_index],
      );
    });

    it("takes since and until as unix seconds or ISO 8601 alike", async () => {
      const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
      const sinceIso = await idsFor(
        `since=${encodeURIComponent(iso(T + HOUR))}&until=${encodeURIComponent(iso(T + 3 * HOUR))}`,
      );
      assert.deepEqual(sinceIso, await idsFor(`since=${T + HOUR}&until=${T + 3 * HOUR}`));
      // A date alone is UTC midnight; a zone offset is honoured
      const day = new Date(T * 1000).toISOString().slice(0, 10);
      assert.deepEqual(await idsFor(`until=${day}`), new Set());
      const offset = new Date((T + HOUR) * 1000 + 2 * HOUR * 1000).toISOString().slice(0, 19) + "+02:00";
      assert.deepEqual(
        await idsFor(`since=${encodeURIComponent(offset)}&until=${T + 2 * HOUR}`),
        idsOf(rows[1]!),
      );
    });

    it("serves the same listing to the ApiClient, with typed filters", async () => {
      const page = await api.client.listAttestations({
        agent: bob,
        privacy: true,
        since: new Date(T * 1000),
        limit: 5,
      });
      assert.deepEqual(
        page.data.map((item) => item.id),
        [rows[3]!.id],
      );
      assert.deepEqual(page.data[0], {
        id: rows[3]!.id,
        kind: "single",
        agent: bob,
        operator: rows[3]!.operator,
        actionType: "ModelInvocation",
        privacy: true,
        storedHash: rows[3]!.stored_hash,
        agentSignature: rows[3]!.agent_signature,
        txSignature: rows[3]!.tx_signature,
        slot: 4,
        timestamp: T + 3 * HOUR,
        batch: null,
      });
    });

    it("walks every page over HTTP exactly once while the indexer inserts newer rows", async () => {
      // Given 150 rows of one agent, several per slot
      const agent = randomAddress();
      const initial = Array.from({ length: 150 }, (_, i) =>
        buildAttestation({ agent, slot: 10_000 + Math.floor(i / 4), timestamp: T + i }),
      );
      await seedAttestations(database.db, initial);
      // And, once the first page is served, a task inserting newer rows of that agent
      let inserting = true;
      let inserted = 0;
      let nextSlot = 20_000;
      let inserter: Promise<void> | undefined;
      const insertNewer = async () => {
        while (inserting) {
          await seedAttestations(database.db, [
            buildAttestation({ agent, slot: nextSlot++, timestamp: T + nextSlot }),
          ]);
          inserted += 1;
          await delay(1);
        }
      };
      // When every page of 9 is fetched by following nextCursor
      const seen: string[] = [];
      try {
        let cursor: string | null = null;
        do {
          const reply = await api.get(
            `/attestations?agent=${agent}&limit=9${cursor ? `&cursor=${cursor}` : ""}`,
          );
          assert.equal(reply.status, 200, reply.text);
          const page = reply.body as Page;
          seen.push(...page.data.map((item) => item.id));
          cursor = page.pagination.nextCursor;
          assert.equal(page.pagination.hasMore, cursor !== null);
          inserter ??= insertNewer();
          await delay(3);
        } while (cursor !== null);
      } finally {
        inserting = false;
        await inserter;
      }
      // Then newer rows arrived meanwhile, and the walk saw each initial row exactly once
      assert.ok(inserted > 0);
      assert.equal(new Set(seen).size, seen.length, "no duplicates");
      assert.deepEqual(
        seen,
        [...initial].reverse().map((row) => row.id),
        "no gaps, newest first",
      );
    });

    it("iterates every page with the ApiClient's async iterator", async () => {
      const agent = randomAddress();
      const initial = Array.from({ length: 23 }, (_, i) =>
        buildAttestation({ agent, slot: 30_000 + i, timestamp: T + i }),
      );
      await seedAttestations(database.db, initial);
      const seen: string[] = [];
      for await (const attestation of api.client.iterateAttestations({ agent, limit: 4 }))
        seen.push(attestation.id);
      assert.deepEqual(
        seen,
        [...initial].reverse().map((row) => row.id),
      );
    });
  });

  describe(`GET /api/v1/attestations/:id on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let api: ApiUnderTest;
    before(async () => {
      database = await openTestDatabase(target.dialect);
      api = await startApiUnderTest(database);
    });
    after(async () => {
      await api?.close();
      await database?.dispose();
    });

    it("finds an attestation by id, a batch item by <batch>:<index>, and a transaction's attestations", async () => {
      // Given a single attestation and a batch of 4
      const single = buildAttestation({ slot: 1, timestamp: T });
      await seedAttestations(database.db, [single]);
      const { batch, items } = await seedBatch(database.db, {
        agent: randomAddress(),
        operator: randomAddress(),
        slot: 2,
        timestamp: T + 1,
        itemCount: 4,
      });
      // Then each lookup answers with matchedBy and the list of matches
      const byId = await api.get(`/attestations/${single.id}`);
      assert.equal(byId.status, 200);
      assert.deepEqual(
        [(byId.body as { matchedBy: string }).matchedBy, (byId.body as Page).data.map((item) => item.id)],
        ["id", [single.id]],
      );
      const item = await api.client.getAttestation(`${batch.address}:2`);
      assert.deepEqual(item.data[0]?.batch, {
        address: batch.address,
        index: 2,
        merkleRoot: batch.merkle_root,
      });
      const bySignature = await api.client.getAttestation(single.tx_signature);
      assert.deepEqual([bySignature.matchedBy, bySignature.data.length], ["txSignature", 1]);
      const byBatchCommit = await api.client.getAttestation(batch.tx_signature);
      assert.deepEqual(
        byBatchCommit.data.map((record) => record.id),
        items.map((row) => row.id),
      );
    });

    it("answers 404 with its code for an unknown id or signature", async () => {
      for (const id of [randomAddress(), randomSignature(), `${randomAddress()}:7`]) {
        const reply = await api.get(`/attestations/${encodeURIComponent(id)}`);
        assert.equal(reply.status, 404);
        assert.equal(problemOf(reply).code, ABAS_API__ATTESTATION_NOT_FOUND);
        await assert.rejects(api.client.getAttestation(id), (error) =>
          isAbasError(error, ABAS_API__ATTESTATION_NOT_FOUND),
        );
      }
    });
  });
}
