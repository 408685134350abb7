/**
 * Rebuilds the database from the ledger alone: clears everything the indexer wrote (agents,
 * attestations, batches, processed transactions, its state; API keys are kept), then applies
 * the program's whole history from its first transaction. It takes leadership first, so it never
 * races a running indexer: it waits for that one to stop.
 */
import { IndexerStateKey, migrateToLatest } from "@abas/db";
import { createSolanaRpc, type Address } from "@solana/kit";

import { writeIndexerState } from "./checkpoint-store.js";
import { LOCAL_PROGRAM_ID } from "./config.js";
import { describeError } from "./describe-error.js";
import { newInstanceId, type IndexerOptions } from "./indexer.js";
import type { IndexerDatabase } from "./indexer-database.js";
import { createLeaderElection } from "./leadership/leader-election.js";
import type { LeaderElection, LeaderLease } from "./leadership/leader-lease.js";
import { LEADER_LEASE_KEY } from "./leadership/sqlite-lease.js";
import { createIndexerLogger, type Logger } from "./logger.js";
import { pollLedger } from "./poller.js";

export type ReindexProgress = Readonly<{
  processed: number;
  total: number;
  elapsedMs: number;
  /** Transactions per second so far. */
  rate: number;
}>;

export type ReindexSummary = Readonly<{
  transactions: number;
  applied: number;
  elapsedMs: number;
  rate: number;
  indexedSlot: number;
}>;

export type ReindexOptions = Pick<
  IndexerOptions,
  "rpcUrl" | "programId" | "database" | "commitment" | "logger" | "instanceId" | "followerRetryMs" | "migrate"
> &
  Readonly<{
    onProgress?: (progress: ReindexProgress) => void;
    /** Aborts the wait for leadership or the rebuild (between two transactions). */
    signal?: AbortSignal;
  }>;

export class ReindexAbortedError extends Error {
  override readonly name = "ReindexAbortedError";
}

/** Deletes every row the indexer derived from the ledger, in one transaction; keeps API keys and the leader lease. */
export async function clearIndexedData(db: IndexerDatabase): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom("attestations").execute();
    await trx.deleteFrom("batches").execute();
    await trx.deleteFrom("agents").execute();
    await trx.deleteFrom("processed_transactions").execute();
    await trx.deleteFrom("indexer_state").where("key", "!=", LEADER_LEASE_KEY).execute();
  });
}

async function waitForLeadership(
  election: LeaderElection,
  retryMs: number,
  logger: Logger,
  signal: AbortSignal | undefined,
): Promise<LeaderLease> {
  let logged = false;
  for (;;) {
    if (signal?.aborted) throw new ReindexAbortedError("reindex aborted while waiting for leadership");
    const lease = await election.tryAcquire();
    if (lease !== undefined) return lease;
    if (!logged) logger.warn("another indexer is running on this database; waiting for it to stop");
    logged = true;
    await new Promise((resolve) => setTimeout(resolve, retryMs));
  }
}

export async function reindex(options: ReindexOptions): Promise<ReindexSummary> {
  const logger = options.logger ?? createIndexerLogger();
  const instanceId = options.instanceId ?? newInstanceId();
  const programId = (options.programId ?? LOCAL_PROGRAM_ID) as Address;
  const { db } = options.database;
  if (options.migrate !== false) await migrateToLatest(options.database);
  const election = createLeaderElection(options.database, instanceId, logger);
  const lease = await waitForLeadership(election, options.followerRetryMs ?? 2000, logger, options.signal);
  try {
    await clearIndexedData(db);
    await writeIndexerState(db, { [IndexerStateKey.Leader]: instanceId });
    const started = performance.now();
    const progressOf = (processed: number, total: number): ReindexProgress => {
      const elapsedMs = performance.now() - started;
      return { processed, total, elapsedMs, rate: elapsedMs > 0 ? (processed * 1000) / elapsedMs : 0 };
    };
    const result = await pollLedger({
      rpc: createSolanaRpc(options.rpcUrl),
      programId,
      commitment: options.commitment ?? "finalized",
      db,
      logger,
      assertActive: () => {
        if (options.signal?.aborted) throw new ReindexAbortedError("reindex aborted");
        if (!lease.held) throw new Error("leadership lost during the reindex");
      },
      onProgress: ({ processed, total }) => options.onProgress?.(progressOf(processed, total)),
    });
    const { elapsedMs, rate } = progressOf(result.listed, result.listed);
    return {
      transactions: result.listed,
      applied: result.applied,
      elapsedMs,
      rate,
      indexedSlot: Number(result.headSlot),
    };
  } catch (error) {
    if (!(error instanceof ReindexAbortedError))
      logger.error({ error: describeError(error) }, "reindex failed");
    throw error;
  } finally {
    await lease.release();
  }
}
