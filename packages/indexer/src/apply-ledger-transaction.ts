/**
 * Applies ledger transactions exactly once, a chunk at a time: their effects, their
 * `processed_transactions` rows and the checkpoint all commit in ONE database transaction, so a
 * crash leaves either the whole chunk or none of it. The rows are inserted first, with
 * ON CONFLICT DO NOTHING, so a transaction that is already applied (by an earlier run, or by
 * another indexer that briefly believed it led) changes nothing but the cursor.
 */
import { IndexerStateKey, type NewAttestationRow } from "@abas/db";
import type { Address } from "@solana/kit";

import type { AccountSnapshot } from "./account-snapshot.js";
import { countPolicyViolation, upsertAgentState } from "./appliers/agent-state.js";
import { applyAttest } from "./appliers/apply-attest.js";
import { applyAttestBatch, applyPublishBatchLeaves } from "./appliers/apply-batch.js";
import type { ApplyContext } from "./appliers/apply-context.js";
import { insertAttestationRows } from "./appliers/attestation-rows.js";
import { writeCheckpoint, writeIndexerState, type Checkpoint } from "./checkpoint-store.js";
import type { IndexerDatabase } from "./indexer-database.js";
import type { Logger } from "./logger.js";
import {
  agentAccountOf,
  findPolicyRefusal,
  type ProgramInstruction,
  type ProgramTransaction,
} from "./transaction-decoder.js";

export type LedgerTransactionToApply = Readonly<{
  transaction: ProgramTransaction;
  /** The accounts its group of transactions touched, read after they were listed. */
  snapshot: AccountSnapshot;
}>;

export type ApplyLedgerTransactionsInput = Readonly<{
  programId: Address;
  /** In ledger order. */
  transactions: readonly LedgerTransactionToApply[];
  /** The checkpoint once they are applied: the newest transaction listed with them (applied now or before). */
  checkpoint: Checkpoint;
  logger: Logger;
  now: number;
  /** The instance id of the leader applying them, recorded in `processed_transactions.applied_by`. */
  appliedBy: string;
  /** The leader lease's fence, run first in the transaction (leadership/leader-lease.ts); the poller always passes it. */
  fence?: (trx: IndexerDatabase) => Promise<void>;
}>;

export type ApplyResult = Readonly<{ applied: number; alreadyApplied: number }>;

/** Rows per `processed_transactions` insert: 5 columns a row, well inside every dialect's limit on bound parameters. */
const PROCESSED_ROWS_PER_INSERT = 100;

async function applyInstruction(context: ApplyContext, instruction: ProgramInstruction): Promise<void> {
  switch (instruction.name) {
    case "register_agent":
    case "update_agent":
      return await upsertAgentState(context, agentAccountOf(instruction));
    case "attest":
      return await applyAttest(context, instruction);
    case "attest_batch":
      return await applyAttestBatch(context, instruction);
    case "publish_batch_leaves":
      return await applyPublishBatchLeaves(context, instruction);
    case "initialize":
    case "unknown":
      return;
  }
}

async function applyFailedTransaction(context: ApplyContext): Promise<void> {
  const refusal = findPolicyRefusal(context.transaction);
  if (refusal === undefined) return;
  const counted = await countPolicyViolation(context.db, refusal.agentAccount);
  context.logger.debug(
    {
      signature: context.transaction.signature,
      agentAccount: refusal.agentAccount,
      error: refusal.errorName,
      counted,
    },
    "policy refusal",
  );
}

/** Marks the transactions processed; returns the signatures that were not already. */
async function insertProcessed(
  trx: IndexerDatabase,
  transactions: readonly ProgramTransaction[],
  now: number,
  appliedBy: string,
): Promise<Set<string>> {
  const inserted = new Set<string>();
  for (let start = 0; start < transactions.length; start += PROCESSED_ROWS_PER_INSERT) {
    const rows = await trx
      .insertInto("processed_transactions")
      .values(
        transactions.slice(start, start + PROCESSED_ROWS_PER_INSERT).map((transaction) => ({
          signature: transaction.signature,
          slot: Number(transaction.slot),
          failed: transaction.error === null ? 0 : 1,
          processed_at: now,
          applied_by: appliedBy,
        })),
      )
      .onConflict((conflict) => conflict.column("signature").doNothing())
      .returning("signature")
      .execute();
    for (const row of rows) inserted.add(row.signature);
  }
  return inserted;
}

export async function applyLedgerTransactions(
  db: IndexerDatabase,
  { programId, transactions, checkpoint, logger, now, appliedBy, fence }: ApplyLedgerTransactionsInput,
): Promise<ApplyResult> {
  return await db.transaction().execute(async (trx) => {
    await fence?.(trx);
    const fresh = await insertProcessed(
      trx,
      transactions.map((entry) => entry.transaction),
      now,
      appliedBy,
    );
    const agentStatesWritten = new Set<string>();
    const attestationRows: NewAttestationRow[] = [];
    for (const { transaction, snapshot } of transactions) {
      if (!fresh.has(transaction.signature)) continue;
      const context: ApplyContext = {
        db: trx,
        programId,
        transaction,
        snapshot,
        indexedAt: now,
        logger,
        agentStatesWritten,
        attestationRows,
      };
      if (transaction.error !== null) await applyFailedTransaction(context);
      else for (const instruction of transaction.instructions) await applyInstruction(context, instruction);
    }
    await insertAttestationRows(trx, attestationRows);
    if (fresh.size > 0) await writeCheckpoint(trx, checkpoint, now);
    else {
      await writeIndexerState(trx, {
        [IndexerStateKey.CursorSignature]: checkpoint.signature,
        [IndexerStateKey.CursorSlot]: String(checkpoint.slot),
      });
    }
    return { applied: fresh.size, alreadyApplied: transactions.length - fresh.size };
  });
}
