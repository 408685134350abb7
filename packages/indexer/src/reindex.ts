/**
 * Rebuilds the database from the ledger alone: clears everything the indexer wrote (agents,
 * attestations, batches, processed transactions, its state; API keys are kept), then applies
 * the program's whole history from its first transaction. It takes the leader lease first, from a
 * running indexer too: that one's next write is refused by the fence, it follows until the reindex
 * releases the lease, then leads again from the rebuilt checkpoint. Nothing runs twice at once.
 */
import { setTimeout as delay } from "node:timers/promises";

import { IndexerStateKey, migrateToLatest } from "@abas/db";
import { createSolanaRpc, type Address } from "@solana/kit";

import { writeIndexerState } from "./checkpoint-store.js";
import { LOCAL_PROGRAM_ID } from "./config.js";
import { describeError } from "./describe-error.js";
import { newInstanceId, type IndexerOptions } from "./indexer.js";
import type { IndexerDatabase } from "./indexer-database.js";
import { createLeaderElection } from "./leadership/leader-election.js";
import { writeAsLeader, type LeaderElection, type LeaderLease } from "./leadership/leader-lease.js";
import { createIndexerLogger } from "./logger.js";
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
  "rpcUrl" | "programId" | "database" | "commitment" | "logger" | "instanceId" | "migrate"
> &
  Readonly<{
    onProgress?: (progress: ReindexProgress) => void;
    /** Aborts the wait for leadership or the rebuild (between two transactions). */
    signal?: AbortSignal;
  }>;

export class ReindexAbortedError extends Error {
  override readonly name = "ReindexAbortedError";
}

/**
 * Deletes every row the indexer derived from the ledger (its state with its checkpoint and any
 * recorded divergence included), in one transaction; keeps API keys and the leader lease.
 */
export async function clearIndexedData(
  db: IndexerDatabase,
  lease: Pick<LeaderLease, "fence">,
): Promise<void> {
  await writeAsLeader(db, lease, async (trx) => {
    await trx.deleteFrom("attestations").execute();
    await trx.deleteFrom("batches").execute();
    await trx.deleteFrom("agents").execute();
    await trx.deleteFrom("processed_transactions").execute();
    await trx.deleteFrom("indexer_state").execute();
  });
}

/** Takes the lease, from a running leader too; retries only when another indexer moved it meanwhile. */
async function takeLeadership(
  election: LeaderElection,
  signal: AbortSignal | undefined,
): Promise<LeaderLease> {
  for (;;) {
    if (signal?.aborted) throw new ReindexAbortedError("reindex aborted before it started");
    const lease = await election.tryAcquire({ takeOver: true });
    if (lease !== undefined) return lease;
    await delay(100);
  }
}

export async function reindex(options: ReindexOptions): Promise<ReindexSummary> {
  const logger = options.logger ?? createIndexerLogger();
  const instanceId = options.instanceId ?? newInstanceId();
  const programId = (options.programId ?? LOCAL_PROGRAM_ID) as Address;
  const { db } = options.database;
  if (options.migrate !== false) await migrateToLatest(options.database);
  const election = createLeaderElection(options.database, instanceId, logger);
  const lease = await takeLeadership(election, options.signal);
  try {
    await clearIndexedData(db, lease);
    await writeAsLeader(db, lease, (trx) => writeIndexerState(trx, { [IndexerStateKey.Leader]: instanceId }));
    const started = performance.now();
    const progressOf = (processed: number, total: number): ReindexProgress => {
      const elapsedMs = performance.now() - started;
      return { processed, total, elapsedMs, rate: elapsedMs > 0 ? (processed * 1000) / elapsedMs : 0 };
    };
    const result = await pollLedger({
      rpc: createSolanaRpc(options.rpcUrl),
      rpcUrl: options.rpcUrl,
      programId,
      commitment: options.commitment ?? "finalized",
      db,
      logger,
      assertActive: () => {
        if (options.signal?.aborted) throw new ReindexAbortedError("reindex aborted");
        if (!lease.held) throw new Error("leadership lost during the reindex");
      },
      lease,
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
