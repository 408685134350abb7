/**
 * The leader lease as a row of `indexer_leader`, the same on SQLite and PostgreSQL. Time is the
 * database's clock, so indexers on hosts whose clocks disagree agree on expiry.
 *
 * - Acquire: read the row; it is free when nobody holds it, it expired, it is already ours, or its
 *   holder is a process on this host that is gone (a kill -9 frees it at once); a reindex takes it
 *   regardless. Then take it with a compare-and-set on (epoch, expires_at) and a new epoch.
 * - Renew every quarter of the lease; a renewal that finds the row no longer ours ends the lease.
 * - Fence: every write transaction of the leader starts by updating the row where it still names
 *   this holder, epoch and an unexpired time. Nothing matched: LeadershipLostError, rolled back.
 *   The update locks the row until the transaction ends, so a takeover cannot commit in between.
 *   On PostgreSQL, a leader that freezes inside such a transaction would hold that lock: the
 *   transaction sets idle_in_transaction_session_timeout, so the server ends it.
 */
import { hostname } from "node:os";

import type { DatabaseHandle, Dialect } from "@abas/db";
import { isProcessAlive } from "@abas/dir-lock";
import { sql, type RawBuilder } from "kysely";

import type { IndexerDatabase } from "../indexer-database.js";
import type { Logger } from "../logger.js";
import { LeadershipLostError, LeaseState, type LeaderElection, type LeaderLease } from "./leader-lease.js";

/** How long a lease lasts without renewal: a frozen or cut-off leader is replaced after at most this. */
export const DEFAULT_LEASE_MS = 10_000;
const LEASE_ROW = 1;

/** Unix ms by the database's clock. */
function databaseNow(dialect: Dialect): RawBuilder<number> {
  return dialect === "postgres"
    ? sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`
    : sql<number>`cast((julianday('now') - 2440587.5) * 86400000 as integer)`;
}

export type LeaseRowOptions = Readonly<{
  database: DatabaseHandle;
  logger: Logger;
  instanceId: string;
  leaseMs?: number;
}>;

export function createLeaseRowElection({
  database,
  logger,
  instanceId,
  leaseMs = DEFAULT_LEASE_MS,
}: LeaseRowOptions): LeaderElection {
  const { db, dialect } = database;
  const now = databaseNow(dialect);
  const host = hostname();

  return {
    tryAcquire: async (options = {}): Promise<LeaderLease | undefined> => {
      const row = await db
        .selectFrom("indexer_leader")
        .select(["holder", "host", "pid", "epoch", "expires_at", now.as("now")])
        .where("id", "=", LEASE_ROW)
        .executeTakeFirstOrThrow();
      const free =
        options.takeOver === true ||
        row.holder === "" ||
        row.holder === instanceId ||
        Number(row.expires_at) <= Number(row.now) ||
        (row.host === host && row.pid !== process.pid && !isProcessAlive(row.pid));
      if (!free) return undefined;
      const epoch = Number(row.epoch) + 1;
      const taken = await db
        .updateTable("indexer_leader")
        .set({ holder: instanceId, host, pid: process.pid, epoch, expires_at: sql`${now} + ${leaseMs}` })
        .where("id", "=", LEASE_ROW)
        .where("epoch", "=", row.epoch)
        .where("expires_at", "=", row.expires_at)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) return undefined;

      const state = new LeaseState();
      const ours = (query: IndexerDatabase) =>
        query
          .updateTable("indexer_leader")
          .where("id", "=", LEASE_ROW)
          .where("holder", "=", instanceId)
          .where("epoch", "=", epoch);
      const lost = (why: string): never => {
        if (state.held) logger.warn({ instanceId, epoch, reason: why }, "leader lease lost");
        state.end();
        throw new LeadershipLostError(`this indexer no longer leads (${why})`);
      };

      const renew = async (): Promise<void> => {
        const renewed = await ours(db)
          .set({ expires_at: sql`${now} + ${leaseMs}` })
          .executeTakeFirst();
        if (Number(renewed.numUpdatedRows) !== 1) lost("another indexer took the lease");
      };
      const timer = setInterval(
        () => {
          renew().catch((error: unknown) => {
            if (!(error instanceof LeadershipLostError))
              logger.warn({ err: error }, "could not renew the leader lease");
          });
        },
        Math.max(50, Math.floor(leaseMs / 4)),
      );
      timer.unref();
      void state.ended.then(() => clearInterval(timer));

      return {
        holder: instanceId,
        get held() {
          return state.held;
        },
        ended: state.ended,
        fence: async (trx) => {
          if (!state.held) lost("the lease has ended");
          if (dialect === "postgres") {
            // A healthy leader's transactions take milliseconds; one that stops answering inside
            // one (frozen, cut off) is ended by the server well within the lease.
            await sql`set local idle_in_transaction_session_timeout = ${sql.lit(Math.floor(leaseMs / 2))}`.execute(
              trx,
            );
          }
          const checked = await ours(trx)
            .set({ holder: instanceId })
            .where("expires_at", ">", now)
            .executeTakeFirst();
          if (Number(checked.numUpdatedRows) !== 1) lost("its lease expired or another indexer took it");
        },
        release: async () => {
          state.end();
          await ours(db).set({ holder: "", expires_at: 0 }).execute();
        },
      };
    },
  };
}
