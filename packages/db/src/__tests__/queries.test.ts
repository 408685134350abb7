import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, beforeEach, describe, it } from "node:test";

import {
  ApiAgent,
  ApiAttestationLookup,
  ApiAttestationPage,
  findContractMismatch,
  type TSchema,
} from "@abas/api-contract";
import { ABAS_API__CURSOR_EXPIRED, ABAS_API__INVALID_CURSOR, isAbasError } from "@abas/errors";

import { getAgent } from "../queries/get-agent.js";
import { getAttestation } from "../queries/get-attestation.js";
import { getIndexerStatus } from "../queries/indexer-status.js";
import { getNewestLedgerTime } from "../queries/ledger-time.js";
import { listAttestations, type ListAttestationsOptions } from "../queries/list-attestations.js";
import { computeReputation } from "../reputation.js";
import { IndexerStateKey, type NewAttestationRow } from "../schema.js";
import {
  buildAttestation,
  openTestDatabase,
  randomAddress,
  seedAgent,
  seedAttestations,
  seedBatch,
  setIndexerState,
  testDatabaseTargets,
  type TestDatabase,
} from "../testing.js";

const HOUR = 3_600;
const DAY = 86_400;
const T = 1_765_000_000;

function assertMatchesContract(schema: TSchema, body: unknown): void {
  assert.notEqual(body, undefined);
  assert.equal(findContractMismatch(schema, body), undefined, JSON.stringify(body));
}

/** Every page of a listing, following nextCursor; `between` runs after each page. */
async function walkAllPages(
  database: TestDatabase,
  options: ListAttestationsOptions,
  between: () => Promise<void> = async () => {},
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await listAttestations(database.db, { ...options, cursor });
    ids.push(...page.data.map((record) => record.id));
    if (!page.pagination.hasMore) {
      assert.equal(page.pagination.nextCursor, null);
      return ids;
    }
    cursor = page.pagination.nextCursor!;
    await between();
  }
}

for (const target of testDatabaseTargets()) {
  describe(`read queries on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    beforeEach(async () => {
      database = await openTestDatabase(target.dialect);
    });
    afterEach(async () => {
      await database?.dispose();
    });

    it("lists newest first: by slot, then by insertion order within a slot", async () => {
      // Given rows inserted out of slot order, two of them in one slot
      const rows = [
        buildAttestation({ slot: 10, timestamp: T }),
        buildAttestation({ slot: 30, timestamp: T + 2 }),
        buildAttestation({ slot: 20, timestamp: T + 1 }),
        buildAttestation({ slot: 30, timestamp: T + 2 }),
      ];
      await seedAttestations(database.db, rows);
      // When the first page is listed
      const page = await listAttestations(database.db, {});
      // Then the newest slot comes first, and the later insert of slot 30 before the earlier one
      assert.deepEqual(
        page.data.map((record) => record.id),
        [rows[3]!.id, rows[1]!.id, rows[2]!.id, rows[0]!.id],
      );
      assert.deepEqual(page.pagination, { nextCursor: null, hasMore: false });
    });

    it("lists what is committed while a transaction of the same handle is open, without waiting for it", async () => {
      // Given a committed row, and a transaction of the same handle that inserted another and waits
      const committed = buildAttestation({ slot: 1, timestamp: T });
      const uncommitted = buildAttestation({ slot: 2, timestamp: T + 1 });
      await seedAttestations(database.db, [committed]);
      let insertDone!: () => void;
      let release!: () => void;
      const inserted = new Promise<void>((resolve) => (insertDone = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      const transaction = database.db.transaction().execute(async (trx) => {
        await trx.insertInto("attestations").values(uncommitted).execute();
        insertDone();
        await released;
      });
      await inserted;
      // When the list is read meanwhile, then it holds the committed row only
      const during = await listAttestations(database.db, {});
      assert.deepEqual(
        during.data.map((record) => record.id),
        [committed.id],
      );
      // And once the transaction commits, the next read holds its row too
      release();
      await transaction;
      const after = await listAttestations(database.db, {});
      assert.deepEqual(
        after.data.map((record) => record.id),
        [uncommitted.id, committed.id],
      );
    });

    it("returns the API's record shape", async () => {
      const single = buildAttestation({ slot: 5, timestamp: T, action_type: "Decision", privacy: 1 });
      await seedAttestations(database.db, [single]);
      const { data } = await listAttestations(database.db, {});
      assert.deepEqual(data, [
        {
          id: single.id,
          kind: "single",
          agent: single.agent,
          operator: single.operator,
          actionType: "Decision",
          privacy: true,
          storedHash: single.stored_hash,
          agentSignature: single.agent_signature,
          txSignature: single.tx_signature,
          slot: 5,
          timestamp: T,
          batch: null,
        },
      ]);
    });

    it("walks every page exactly once while newer rows are being inserted", async () => {
      // Given 250 rows, three per slot, so that page boundaries fall inside slots
      const initial = Array.from({ length: 250 }, (_, i) =>
        buildAttestation({ slot: 1000 + Math.floor(i / 3), timestamp: T + i }),
      );
      await seedAttestations(database.db, initial);
      // And a task that, once the first page is read, keeps inserting newer rows
      let walking = true;
      let nextSlot = 5000;
      let inserted = 0;
      let inserter: Promise<void> | undefined;
      const insertNewerRows = async () => {
        while (walking) {
          await seedAttestations(database.db, [
            buildAttestation({ slot: nextSlot, timestamp: T + nextSlot }),
            buildAttestation({ slot: nextSlot, timestamp: T + nextSlot }),
          ]);
          nextSlot += 1;
          inserted += 2;
          await delay(1);
        }
      };
      // When every page of 7 is walked
      let seen: string[];
      try {
        seen = await walkAllPages(database, { limit: 7 }, async () => {
          inserter ??= insertNewerRows();
          await delay(2);
        });
      } finally {
        walking = false;
        await inserter;
      }
      // Then rows were inserted meanwhile, yet every initial row came exactly once and none of the new ones
      assert.ok(inserted > 0, "the inserter ran during the walk");
      assert.equal(new Set(seen).size, seen.length, "no duplicates");
      assert.deepEqual(new Set(seen), new Set(initial.map((row) => row.id)));
    });

    it("filters by agent, operator, action type, privacy, time range and batch", async () => {
      // Given a mix of attestations
      const alice = randomAddress();
      const bob = randomAddress();
      const operator = randomAddress();
      const rows: NewAttestationRow[] = [
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
      const { items: batchItems } = await seedBatch(database.db, {
        agent: alice,
        operator,
        slot: 5,
        timestamp: T + 4 * HOUR,
        itemCount: 3,
        actionTypes: ["Decision"],
      });
      const ids = async (options: ListAttestationsOptions) => new Set(await walkAllPages(database, options));
      const idsOf = (...selected: NewAttestationRow[]) => new Set(selected.map((row) => row.id));
      const [a0, a1, b0, b1] = rows as [
        NewAttestationRow,
        NewAttestationRow,
        NewAttestationRow,
        NewAttestationRow,
      ];

      // Then each filter keeps exactly its rows
      assert.deepEqual(await ids({ agent: alice }), idsOf(a0, a1, ...batchItems));
      assert.deepEqual(await ids({ operator }), idsOf(a0, a1, ...batchItems));
      assert.deepEqual(await ids({ actionType: "ToolCall" }), idsOf(a1, b0));
      assert.deepEqual(await ids({ actionType: "Decision" }), idsOf(...batchItems));
      assert.deepEqual(await ids({ privacy: true }), idsOf(a1, b1));
      assert.deepEqual(await ids({ privacy: false }), idsOf(a0, b0, ...batchItems));
      // since is inclusive, until exclusive
      assert.deepEqual(await ids({ since: T + HOUR, until: T + 3 * HOUR }), idsOf(a1, b0));
      assert.deepEqual(await ids({ since: T + 3 * HOUR }), idsOf(b1, ...batchItems));
      assert.deepEqual(await ids({ until: T + HOUR }), idsOf(a0));
      assert.deepEqual(await ids({ batch: batchItems[0]!.batch_address! }), idsOf(...batchItems));
      // And filters combine
      assert.deepEqual(await ids({ agent: bob, privacy: true }), idsOf(b1));
      assert.deepEqual(await ids({ agent: randomAddress() }), new Set());
    });

    it("pages a filtered listing with the same cursor rules", async () => {
      const agent = randomAddress();
      const mine = Array.from({ length: 9 }, (_, i) =>
        buildAttestation({ slot: 100 + i, timestamp: T + i, agent }),
      );
      const others = Array.from({ length: 9 }, (_, i) =>
        buildAttestation({ slot: 100 + i, timestamp: T + i }),
      );
      await seedAttestations(database.db, [...mine, ...others]);
      const seen = await walkAllPages(database, { agent, limit: 2 });
      assert.deepEqual(seen, mine.map((row) => row.id).reverse());
    });

    it("refuses a cursor issued before the attestations were indexed again (abas reindex) instead of skipping rows", async () => {
      // Given a walk in progress over ten attestations of one slot (the items of one batch)
      const rows = Array.from({ length: 10 }, () => buildAttestation({ slot: 100, timestamp: T }));
      await seedAttestations(database.db, rows);
      const first = await listAttestations(database.db, { limit: 3 });
      // When the index is rebuilt meanwhile, as reindex does: the same rows written again, with new seqs
      await database.db.deleteFrom("attestations").execute();
      await seedAttestations(database.db, rows);
      // Then the walk's cursor names a row no longer there: refused, with a code of its own
      await assert.rejects(
        listAttestations(database.db, { limit: 3, cursor: first.pagination.nextCursor! }),
        (error) => isAbasError(error, ABAS_API__CURSOR_EXPIRED),
      );
      // while a walk started after the rebuild sees every row once
      assert.deepEqual((await walkAllPages(database, { limit: 3 })).sort(), rows.map((row) => row.id).sort());
    });

    it("refuses a cursor of a rebuild still under way, before any row is written again", async () => {
      const rows = Array.from({ length: 4 }, (_, i) => buildAttestation({ slot: 100 + i, timestamp: T }));
      await seedAttestations(database.db, rows);
      const first = await listAttestations(database.db, { limit: 2 });
      await database.db.deleteFrom("attestations").execute();
      await assert.rejects(
        listAttestations(database.db, { limit: 2, cursor: first.pagination.nextCursor! }),
        (error) => isAbasError(error, ABAS_API__CURSOR_EXPIRED),
      );
    });

    it("refuses a malformed cursor with its code, before reading", async () => {
      await assert.rejects(listAttestations(database.db, { cursor: "%%%" }), (error) =>
        isAbasError(error, ABAS_API__INVALID_CURSOR),
      );
    });

    it("finds one attestation by id, a batch item by <batch>:<index>, and a transaction's attestations", async () => {
      // Given a single attestation and a batch of three
      const single = buildAttestation({ slot: 7, timestamp: T });
      await seedAttestations(database.db, [single]);
      const { batch, items } = await seedBatch(database.db, {
        agent: randomAddress(),
        operator: randomAddress(),
        slot: 8,
        timestamp: T + 1,
        itemCount: 3,
      });
      // Then the id finds the single one
      const byId = await getAttestation(database.db, single.id);
      assert.equal(byId?.matchedBy, "id");
      assert.deepEqual(
        byId?.data.map((record) => record.id),
        [single.id],
      );
      // And a batch item id finds that item with its batch part
      const item = await getAttestation(database.db, `${batch.address}:1`);
      assert.deepEqual(item?.data[0]?.batch, {
        address: batch.address,
        index: 1,
        merkleRoot: batch.merkle_root,
      });
      // And the single's transaction finds it alone
      const bySignature = await getAttestation(database.db, single.tx_signature);
      assert.equal(bySignature?.matchedBy, "txSignature");
      assert.deepEqual(
        bySignature?.data.map((record) => record.id),
        [single.id],
      );
      // And the batch commit transaction finds every item, by batch index
      const byBatchSignature = await getAttestation(database.db, batch.tx_signature);
      assert.deepEqual(
        byBatchSignature?.data.map((record) => record.id),
        items.map((row) => row.id),
      );
      // And unknown ids and signatures find nothing
      assert.equal(await getAttestation(database.db, randomAddress()), undefined);
      const otherLast = batch.tx_signature.endsWith("1") ? "2" : "1";
      assert.equal(await getAttestation(database.db, batch.tx_signature.slice(0, -1) + otherLast), undefined);
    });

    it("profiles an agent: policy, metrics relative to the newest ledger time, and reputation", async () => {
      // Given an agent registered 100 days before T, allowed Transaction and Decision
      const agent = await seedAgent(database.db, {
        registered_at: T - 100 * DAY,
        updated_at: T - 50 * DAY,
        allowed_action_types: 0b0101,
        attestation_count: 5,
        batch_count: 1,
        batch_item_count: 3,
        last_attested_at: T,
        policy_violation_count: 2,
        state_slot: 900,
      });
      // And five single attestations over 40 days, the newest at T, and a private batch of 3 at T - 25h
      const at = (timestamp: number, slot: number) =>
        buildAttestation({
          agent: agent.agent,
          operator: agent.operator,
          slot,
          timestamp,
          action_type: "Transaction",
        });
      await seedAttestations(database.db, [
        at(T - 40 * DAY, 1),
        at(T - 10 * DAY, 2),
        at(T - 3 * DAY, 3),
        at(T - 2 * HOUR, 5),
        at(T, 6),
      ]);
      await seedBatch(database.db, {
        agent: agent.agent,
        operator: agent.operator,
        slot: 4,
        timestamp: T - 25 * HOUR,
        itemCount: 3,
        actionTypes: ["Decision"],
        privacy: true,
      });
      // And another agent's older attestation, which must not count
      await seedAttestations(database.db, [buildAttestation({ slot: 0, timestamp: T - DAY })]);

      // When the agent is profiled (by key, and by its account address)
      const profile = await getAgent(database.db, agent.agent);
      assert.deepEqual(await getAgent(database.db, agent.address), profile);
      assert.ok(profile);

      // Then its on-chain state and policy are shown by name
      assert.equal(profile.status, "active");
      assert.deepEqual(profile.policy.allowedActionTypes, ["Transaction", "Decision"]);
      assert.deepEqual(
        [profile.registeredAt, profile.updatedAt, profile.stateSlot],
        [T - 100 * DAY, T - 50 * DAY, 900],
      );
      // And the metrics count its indexed attestations, with recent windows ending at T
      assert.deepEqual(profile.metrics, {
        attestations: {
          total: 8,
          single: 5,
          batchItems: 3,
          byActionType: { Transaction: 5, ToolCall: 0, Decision: 3, ModelInvocation: 0 },
        },
        ledgerCounters: { singleAttestations: 5, batches: 1, batchItems: 3, lastAttestedAt: T },
        firstSeenAt: T - 40 * DAY,
        lastSeenAt: T,
        recent: { referenceTime: T, last24h: 2, last7d: 6, activeDaysLast30: 4 },
        privacy: { count: 3, share: 0.375 },
        policyViolations: 2,
      });
      // And the reputation is v1 of those facts
      assert.deepEqual(
        profile.reputation,
        computeReputation({
          status: "active",
          registeredAt: T - 100 * DAY,
          attestationCount: 8,
          activeDaysInWindow: 4,
          policyViolations: 2,
          referenceTime: T,
        }),
      );
      assert.equal(profile.reputation.score, 44);
    });

    it("answers in the REST contract's shapes at run time, not only by type (BIGINT as text, integer booleans)", async () => {
      // Given an agent with a private single attestation and a batch of two items
      const agent = await seedAgent(database.db, {
        registered_at: T - 86_400,
        last_attested_at: T,
        policy_violation_count: 1,
      });
      const single = buildAttestation({
        agent: agent.agent,
        operator: agent.operator,
        slot: 9,
        timestamp: T,
        privacy: 1,
      });
      await seedAttestations(database.db, [single]);
      const { items } = await seedBatch(database.db, {
        agent: agent.agent,
        operator: agent.operator,
        slot: 8,
        timestamp: T - 60,
        itemCount: 2,
      });

      // When every read query answers, Then each answer matches its contract schema
      const page = await listAttestations(database.db, { limit: 2 });
      assert.equal(page.pagination.hasMore, true);
      assertMatchesContract(ApiAttestationPage, page);
      assertMatchesContract(ApiAttestationPage, await listAttestations(database.db, { agent: agent.agent }));
      assertMatchesContract(ApiAttestationLookup, await getAttestation(database.db, single.id));
      assertMatchesContract(ApiAttestationLookup, await getAttestation(database.db, items[0]!.tx_signature));
      assertMatchesContract(ApiAgent, await getAgent(database.db, agent.agent));
    });
    it("profiles an agent that never attested, and finds no unknown agent", async () => {
      const agent = await seedAgent(database.db, { registered_at: T, updated_at: T, status: "suspended" });
      const profile = await getAgent(database.db, agent.agent);
      assert.equal(profile?.metrics.attestations.total, 0);
      assert.equal(profile?.metrics.ledgerCounters.lastAttestedAt, null);
      assert.deepEqual([profile?.metrics.firstSeenAt, profile?.metrics.lastSeenAt], [null, null]);
      assert.equal(profile?.metrics.privacy.share, 0);
      assert.equal(profile?.metrics.recent.referenceTime, T);
      assert.equal(profile?.reputation.score, 0);
      assert.equal(await getAgent(database.db, randomAddress()), undefined);
    });

    it("takes the newest ledger time from attestations and agent accounts", async () => {
      assert.equal(await getNewestLedgerTime(database.db), null);
      await seedAgent(database.db, { registered_at: T, updated_at: T + 50 });
      assert.equal(await getNewestLedgerTime(database.db), T + 50);
      await seedAttestations(database.db, [buildAttestation({ slot: 1, timestamp: T + 100 })]);
      assert.equal(await getNewestLedgerTime(database.db), T + 100);
    });

    it("reads the indexer's status, with nulls before it ever ran", async () => {
      assert.deepEqual(await getIndexerStatus(database.db), {
        indexedSlot: null,
        cursorSignature: null,
        cursorSlot: null,
        lastIngestAt: null,
        heartbeatAt: null,
        lastError: null,
        lastErrorAt: null,
        leader: null,
        divergence: null,
      });
      await setIndexerState(database.db, {
        [IndexerStateKey.IndexedSlot]: 1234,
        [IndexerStateKey.CursorSlot]: 1200,
        [IndexerStateKey.CursorSignature]: "sig",
        [IndexerStateKey.LastIngestAt]: 1_765_000_000_000,
        [IndexerStateKey.HeartbeatAt]: 1_765_000_001_000,
        [IndexerStateKey.LastError]: "",
        [IndexerStateKey.LastErrorAt]: 1_764_000_000_000,
      });
      const status = await getIndexerStatus(database.db);
      assert.deepEqual(
        [
          status.indexedSlot,
          status.cursorSlot,
          status.cursorSignature,
          status.lastIngestAt,
          status.heartbeatAt,
        ],
        [1234, 1200, "sig", 1_765_000_000_000, 1_765_000_001_000],
      );
      // An empty last_error means the last poll succeeded: no error time is reported then
      assert.deepEqual([status.lastError, status.lastErrorAt], [null, null]);
      // A recorded divergence is read back as its reason
      await setIndexerState(database.db, {
        [IndexerStateKey.LedgerDivergence]: "transaction x is not on the ledger",
      });
      assert.equal((await getIndexerStatus(database.db)).divergence, "transaction x is not on the ledger");
    });
  });
}
