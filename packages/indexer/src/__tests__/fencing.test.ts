/**
 * Fencing: a leader whose lease was taken (it froze past its expiry, or a reindex took over) can no
 * longer write. Its writes are refused with LeadershipLostError inside their transaction and leave
 * nothing behind. The leases' expiry is forced in the database here (time passing while a leader
 * is frozen, injected on purpose); the process-level SIGSTOP test is in leader-election.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";

import { IndexerStateKey, type DatabaseHandle } from "@abas/db";

import { writeIndexerState } from "../checkpoint-store.js";
import { createLeaderElection } from "../leadership/leader-election.js";
import { LeadershipLostError, writeAsLeader, type LeaderLease } from "../leadership/leader-lease.js";
import { createIndexerLogger } from "../logger.js";
import { readState } from "./support/ledger-truth.js";
import {
  createTestDatabase,
  DATABASE_KINDS,
  skipUnless,
  type TestDatabase,
} from "./support/test-databases.js";

const logger = createIndexerLogger("silent");

for (const kind of DATABASE_KINDS) {
  describe(`fencing of a stale leader on ${kind}`, { skip: skipUnless(kind) }, () => {
    let testDatabase: TestDatabase;
    let database: DatabaseHandle;
    const leases: LeaderLease[] = [];
    before(async () => {
      testDatabase = await createTestDatabase(kind);
      database = testDatabase.open();
      const { migrateToLatest } = await import("@abas/db");
      await migrateToLatest(database);
    });
    after(async () => {
      await Promise.all(leases.map((lease) => lease.release().catch(() => undefined)));
      await database?.close();
      await testDatabase?.dispose();
    });

    const acquire = async (instanceId: string, options: { takeOver?: boolean } = {}, leaseMs = 60_000) => {
      const lease = await createLeaderElection(database, instanceId, logger, leaseMs).tryAcquire(options);
      if (lease !== undefined) leases.push(lease);
      return lease;
    };
    const writeCursor = (lease: LeaderLease, signature: string) =>
      writeAsLeader(database.db, lease, (trx) =>
        writeIndexerState(trx, { [IndexerStateKey.CursorSignature]: signature }),
      );
    const expireLease = () => database.db.updateTable("indexer_leader").set({ expires_at: 0 }).execute();

    it("refuses the writes of a leader whose expired lease another indexer took", async () => {
      // Given a leader A, and B refused while A holds the lease
      const a = (await acquire("A"))!;
      assert.equal(await acquire("B"), undefined);
      await writeCursor(a, "written-by-A");

      // When A's lease runs out (A frozen) and B takes it
      await expireLease();
      const b = (await acquire("B"))!;
      assert.ok(b);

      // Then A's next write is refused and changes nothing, while B writes
      await assert.rejects(writeCursor(a, "stale-write-by-A"), LeadershipLostError);
      assert.equal(a.held, false);
      assert.equal((await readState(database)).get(IndexerStateKey.CursorSignature), "written-by-A");
      await writeCursor(b, "written-by-B");
      assert.equal((await readState(database)).get(IndexerStateKey.CursorSignature), "written-by-B");
      await b.release();
    });

    it("refuses a leader's writes once its lease expired, even before anyone took it", async () => {
      const a = (await acquire("A"))!;
      await expireLease();
      await assert.rejects(writeCursor(a, "late"), LeadershipLostError);
    });

    it("lets a reindex take the lease from a running leader, fencing that leader off", async () => {
      const leader = (await acquire("running-indexer"))!;
      const reindex = (await acquire("reindex", { takeOver: true }))!;
      assert.ok(reindex);
      await assert.rejects(writeCursor(leader, "from-the-old-leader"), LeadershipLostError);
      await writeCursor(reindex, "from-the-reindex");
      await reindex.release();
      // And once the reindex is done, the running indexer leads again
      assert.ok(await acquire("running-indexer"));
    });

    it(
      "ends a leader's write transaction that stops answering, so its lock never delays a takeover",
      {
        skip:
          kind === "sqlite"
            ? "SQLite has one writer process at a time: a frozen one holds the file until it is killed"
            : false,
      },
      async () => {
        await database.db.updateTable("indexer_leader").set({ holder: "", expires_at: 0 }).execute();
        // Given a leader with a 2 s lease that stops answering in the middle of a write transaction
        // (its fence holds the lease row)
        const a = (await acquire("A", {}, 2_000))!;
        const frozen = database.db
          .transaction()
          .execute(async (trx) => {
            await a.fence(trx);
            await delay(8_000);
          })
          .catch((error: unknown) => error);
        const frozenAt = Date.now();
        await delay(100);

        // When another connection needs the lease row (as a takeover does)
        await database.db.updateTable("indexer_leader").set({ host: "elsewhere" }).execute();

        // Then it waited about half a lease, not until the frozen transaction would have ended:
        // the server ended that transaction, which rolled back
        const waitedMs = Date.now() - frozenAt;
        assert.ok(waitedMs < 3_000, `the row was locked for ${waitedMs} ms`);
        assert.match(String(await frozen), /idle-in-transaction|terminat|not queryable/i);
      },
    );
  });
}
