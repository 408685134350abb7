/**
 * The indexer as a long-running service: become the leader (or wait as a follower), then poll
 * the ledger on an interval and whenever the log subscription announces activity, backing off
 * while the ledger (or the database) fails, and recording each failure in `indexer_state`.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";

import { IndexerStateKey, migrateToLatest, type DatabaseHandle } from "@abas/db";
import { createSolanaRpc, type Address } from "@solana/kit";

import { writeIndexerState, writeLastError } from "./checkpoint-store.js";
import {
  DEFAULT_POLL_INTERVAL_MS,
  deriveWebSocketUrl,
  LOCAL_PROGRAM_ID,
  type IndexerCommitment,
} from "./config.js";
import { describeError } from "./describe-error.js";
import { createLeaderElection } from "./leadership/leader-election.js";
import { LeadershipLostError, writeAsLeader, type LeaderLease } from "./leadership/leader-lease.js";
import { createIndexerLogger, type Logger } from "./logger.js";
import { pollLedger } from "./poller.js";
import { startSubscriptionWakeUp } from "./subscription-wake-up.js";
import { WakeSignal } from "./wake-signal.js";

export type IndexerOptions = Readonly<{
  /** HTTP JSON-RPC of the ledger. */
  rpcUrl: string;
  /** Its WebSocket; default derived from rpcUrl (an explicit port plus one). */
  wsUrl?: string;
  /** Default: the local ledger's program. */
  programId?: string;
  /** The database to write; the caller opens and closes it. */
  database: DatabaseHandle;
  /** Time between polls when nothing wakes the indexer sooner; default 1000 ms. */
  pollIntervalMs?: number;
  /** Default "finalized": what is indexed can no longer be rolled back on a real cluster. */
  commitment?: IndexerCommitment;
  logger?: Logger;
  /** Names this indexer in logs and in `indexer_state.leader`; default host:pid:random. */
  instanceId?: string;
  /** Wake up on the program's log notifications; default true. */
  subscribe?: boolean;
  /** How often a follower asks for leadership; default 2000 ms. */
  followerRetryMs?: number;
  /** How long the leader lease lasts without renewal (renewed every quarter of it); default 10 000 ms. */
  leaseMs?: number;
  /** First and largest delay between polls after a failure; default 500 ms and 10 000 ms. */
  firstBackoffMs?: number;
  maxBackoffMs?: number;
  /** Apply the database migrations first; default true. */
  migrate?: boolean;
}>;

export type IndexerRole = "starting" | "follower" | "leader" | "stopped";

export type IndexerStatus = Readonly<{
  instanceId: string;
  role: IndexerRole;
  /** Successful polls since start. */
  polls: number;
  transactionsApplied: number;
  /** Unix ms of the last successful poll. */
  lastPollAt: number | undefined;
  /** The ledger slot up to which everything is applied, as of the last successful poll. */
  indexedSlot: number | undefined;
  /** Why the last poll failed; undefined once a poll succeeds. */
  lastError: string | undefined;
}>;

export type RunningIndexer = Readonly<{
  /** Finishes the database transaction in progress, steps down and resolves; the database stays open. */
  stop: () => Promise<void>;
  status: () => IndexerStatus;
}>;

/** Thrown between two transactions to end a poll early. */
class PollInterrupted extends Error {
  override readonly name = "PollInterrupted";
}

export function newInstanceId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

export async function startIndexer(options: IndexerOptions): Promise<RunningIndexer> {
  const logger = options.logger ?? createIndexerLogger();
  const instanceId = options.instanceId ?? newInstanceId();
  const programId = (options.programId ?? LOCAL_PROGRAM_ID) as Address;
  const wsUrl = options.wsUrl ?? deriveWebSocketUrl(options.rpcUrl);
  const commitment = options.commitment ?? "finalized";
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const followerRetryMs = options.followerRetryMs ?? 2000;
  const firstBackoffMs = options.firstBackoffMs ?? 500;
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  const { db } = options.database;

  if (options.migrate !== false) await migrateToLatest(options.database);
  const rpc = createSolanaRpc(options.rpcUrl);
  const election = createLeaderElection(options.database, instanceId, logger, options.leaseMs);
  const wake = new WakeSignal();
  let stopping = false;
  let status: IndexerStatus = {
    instanceId,
    role: "starting",
    polls: 0,
    transactionsApplied: 0,
    lastPollAt: undefined,
    indexedSlot: undefined,
    lastError: undefined,
  };
  const update = (change: Partial<IndexerStatus>): void => {
    status = { ...status, ...change };
  };

  const lead = async (lease: LeaderLease): Promise<void> => {
    update({ role: "leader" });
    logger.info(
      { instanceId, programId, rpcUrl: options.rpcUrl, database: options.database.description },
      "leading: indexing",
    );
    void lease.ended.then(() => wake.wake());
    const subscription =
      options.subscribe === false
        ? undefined
        : startSubscriptionWakeUp({ wsUrl, programId, commitment, logger, onActivity: () => wake.wake() });
    let failures = 0;
    try {
      await writeAsLeader(db, lease, (trx) =>
        writeIndexerState(trx, { [IndexerStateKey.Leader]: instanceId }),
      );
      while (!stopping && lease.held) {
        try {
          const result = await pollLedger({
            rpcUrl: options.rpcUrl,
            rpc,
            programId,
            commitment,
            db,
            logger,
            assertActive: () => {
              if (stopping || !lease.held) throw new PollInterrupted();
            },
            lease,
          });
          failures = 0;
          update({
            polls: status.polls + 1,
            transactionsApplied: status.transactionsApplied + result.applied,
            lastPollAt: Date.now(),
            indexedSlot: Number(result.headSlot),
            lastError: undefined,
          });
          if (result.applied > 0) {
            logger.info(
              { instanceId, applied: result.applied, indexedSlot: Number(result.headSlot) },
              "applied",
            );
          }
        } catch (error) {
          if (error instanceof PollInterrupted || error instanceof LeadershipLostError) break;
          failures += 1;
          const message = describeError(error);
          update({ lastError: message });
          logger.warn({ error: message, failures }, "poll failed; retrying");
          await writeAsLeader(db, lease, (trx) => writeLastError(trx, message, Date.now())).catch(
            (dbError: unknown) =>
              logger.error({ error: describeError(dbError) }, "could not record the poll failure"),
          );
        }
        const delay =
          failures === 0 ? pollIntervalMs : Math.min(firstBackoffMs * 2 ** (failures - 1), maxBackoffMs);
        await wake.wait(delay);
      }
    } finally {
      subscription?.stop();
      if (!lease.held && !stopping) logger.warn({ instanceId }, "leadership lost");
      await lease
        .release()
        .catch((error: unknown) =>
          logger.warn({ error: describeError(error) }, "could not release leadership"),
        );
    }
  };

  const loop = (async () => {
    let waitingLogged = false;
    while (!stopping) {
      let lease: LeaderLease | undefined;
      try {
        lease = await election.tryAcquire();
      } catch (error) {
        // The database is unreachable: nobody can index, so there is nothing to record it in.
        update({ lastError: describeError(error) });
        logger.warn({ error: describeError(error) }, "could not ask for leadership; retrying");
        await wake.wait(followerRetryMs);
        continue;
      }
      if (lease === undefined) {
        update({ role: "follower" });
        if (!waitingLogged) logger.info({ instanceId }, "another indexer leads; following");
        waitingLogged = true;
        await wake.wait(followerRetryMs);
        continue;
      }
      waitingLogged = false;
      try {
        await lead(lease);
      } catch (error) {
        logger.error({ error: describeError(error) }, "indexing stopped on an error; trying again");
        await wake.wait(followerRetryMs);
      }
    }
    update({ role: "stopped" });
  })();

  return {
    stop: async () => {
      stopping = true;
      wake.wake();
      await loop;
    },
    status: () => status,
  };
}
