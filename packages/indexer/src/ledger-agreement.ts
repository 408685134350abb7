/**
 * Whether the index still agrees with the ledger. The ledger is the source of truth, so an index
 * holding a transaction the ledger no longer has (the ledger lost data, was restored from an older
 * copy, or a fork dropped a `confirmed` transaction) serves receipts nobody can verify. Each poll
 * checks that the newest indexed transaction, the checkpoint, is still on the ledger; when it is
 * not, the divergence is recorded in `indexer_state` for /health to name, and stays there until a
 * reindex rebuilds the index from the ledger. Indexing goes on meanwhile: what the ledger has
 * now is still applied.
 */
import { IndexerStateKey } from "@abas/db";
import type { Rpc, Signature, SolanaRpcApi } from "@solana/kit";

import { readIndexerState, writeIndexerState, type Checkpoint } from "./checkpoint-store.js";
import type { IndexerDatabase } from "./indexer-database.js";
import { writeAsLeader, type LeaderLease } from "./leadership/leader-lease.js";
import type { Logger } from "./logger.js";
import { rpcRequestOptions } from "./rpc-request-options.js";

/** Records why the index and the ledger disagree; the first reason found is kept. */
export async function recordDivergence(
  db: IndexerDatabase,
  lease: Pick<LeaderLease, "fence">,
  reason: string,
  logger: Logger,
): Promise<void> {
  const recorded = await writeAsLeader(db, lease, async (trx) => {
    if ((await readIndexerState(trx)).get(IndexerStateKey.LedgerDivergence)) return false;
    await writeIndexerState(trx, { [IndexerStateKey.LedgerDivergence]: reason });
    return true;
  });
  if (recorded)
    logger.error({ reason }, "the index holds data the ledger does not: rebuild it with abas reindex");
}

/** A node that answered as of a slot before the checkpoint's: behind, not a ledger that lost data. */
export class LedgerNodeBehindError extends Error {
  override readonly name = "LedgerNodeBehindError";
}

/**
 * Checks that the checkpoint transaction is on the ledger; records the divergence when it is not.
 * A node answering as of a slot before the checkpoint's (a load-balanced RPC's node behind) cannot
 * know it yet: the poll fails and is retried instead.
 */
export async function checkCheckpointOnLedger(
  rpc: Rpc<SolanaRpcApi>,
  db: IndexerDatabase,
  lease: Pick<LeaderLease, "fence">,
  checkpoint: Checkpoint,
  logger: Logger,
): Promise<void> {
  const { context, value } = await rpc
    .getSignatureStatuses([checkpoint.signature as Signature], { searchTransactionHistory: true })
    .send(rpcRequestOptions());
  if (value[0] !== null && value[0] !== undefined) return;
  if (context.slot < BigInt(checkpoint.slot)) {
    throw new LedgerNodeBehindError(
      `the ledger's node answered as of slot ${context.slot}, before slot ${checkpoint.slot} of the newest ` +
        `transaction the index applied (${checkpoint.signature}): it is behind; the poll is retried`,
    );
  }
  await recordDivergence(
    db,
    lease,
    `transaction ${checkpoint.signature} (slot ${checkpoint.slot}), the newest the index applied, is not on ` +
      "the ledger: the ledger lost data or was restored from an older copy",
    logger,
  );
}
