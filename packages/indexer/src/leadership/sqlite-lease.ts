/**
 * SQLite leadership: one process indexes a database file. The leader keeps a lease row in
 * `indexer_state` (its id, host, pid and when it last renewed it) and renews it every few seconds.
 * Another indexer may take the lease when it is expired, or at once when its holder's process on
 * this host is gone (a crash or `kill -9` frees it without waiting for the expiry).
 */
import { hostname } from "node:os";

import type { IndexerDatabase } from "../indexer-database.js";
import type { Logger } from "../logger.js";
import { LeaseState, type LeaderElection, type LeaderLease } from "./leader-lease.js";

/** The `indexer_state` key of the lease (JSON of LeaseRecord). */
export const LEADER_LEASE_KEY = "leader_lease";
export const DEFAULT_LEASE_MS = 15_000;

type LeaseRecord = Readonly<{ id: string; host: string; pid: number; renewedAt: number }>;

export type SqliteLeaderElectionOptions = Readonly<{
  db: IndexerDatabase;
  logger: Logger;
  instanceId: string;
  /** A lease not renewed for this long is free; default 15 s, renewed every third of it. */
  leaseMs?: number;
}>;

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function parseLease(value: string | undefined): LeaseRecord | undefined {
  if (value === undefined) return undefined;
  try {
    const parsed = JSON.parse(value) as Partial<LeaseRecord>;
    if (typeof parsed.id !== "string" || typeof parsed.renewedAt !== "number") return undefined;
    return { id: parsed.id, host: String(parsed.host), pid: Number(parsed.pid), renewedAt: parsed.renewedAt };
  } catch {
    return undefined;
  }
}

async function readLease(db: IndexerDatabase): Promise<LeaseRecord | undefined> {
  const row = await db
    .selectFrom("indexer_state")
    .select("value")
    .where("key", "=", LEADER_LEASE_KEY)
    .executeTakeFirst();
  return parseLease(row?.value);
}

async function writeLease(db: IndexerDatabase, lease: LeaseRecord): Promise<void> {
  await db
    .insertInto("indexer_state")
    .values({ key: LEADER_LEASE_KEY, value: JSON.stringify(lease) })
    .onConflict((conflict) => conflict.column("key").doUpdateSet({ value: JSON.stringify(lease) }))
    .execute();
}

export function createSqliteLeaderElection({
  db,
  logger,
  instanceId,
  leaseMs = DEFAULT_LEASE_MS,
}: SqliteLeaderElectionOptions): LeaderElection {
  const host = hostname();
  const mine = (): LeaseRecord => ({ id: instanceId, host, pid: process.pid, renewedAt: Date.now() });
  const isFree = (lease: LeaseRecord | undefined): boolean =>
    lease === undefined ||
    lease.id === instanceId ||
    Date.now() - lease.renewedAt > leaseMs ||
    (lease.host === host && lease.pid !== process.pid && !isProcessAlive(lease.pid));

  return {
    tryAcquire: async (): Promise<LeaderLease | undefined> => {
      const acquired = await db.transaction().execute(async (trx) => {
        if (!isFree(await readLease(trx))) return false;
        await writeLease(trx, mine());
        return true;
      });
      if (!acquired) return undefined;

      const state = new LeaseState();
      const renew = async (): Promise<void> => {
        const stillMine = await db.transaction().execute(async (trx) => {
          if ((await readLease(trx))?.id !== instanceId) return false;
          await writeLease(trx, mine());
          return true;
        });
        if (!stillMine) {
          logger.error("another indexer took the lease (this one stalled past its expiry); leadership lost");
          state.end(false);
        }
      };
      const timer = setInterval(
        () => {
          renew().catch((error: unknown) => logger.warn({ err: error }, "could not renew the leader lease"));
        },
        Math.max(100, Math.floor(leaseMs / 3)),
      );
      timer.unref();
      void state.ended.then(() => clearInterval(timer));
      return {
        get held() {
          return state.held;
        },
        ended: state.ended,
        release: async () => {
          state.end(true);
          await db.transaction().execute(async (trx) => {
            if ((await readLease(trx))?.id === instanceId) {
              await trx.deleteFrom("indexer_state").where("key", "=", LEADER_LEASE_KEY).execute();
            }
          });
        },
      };
    },
  };
}
