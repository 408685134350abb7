/**
 * Applies one ledger transaction exactly once: its effects, its `processed_transactions` row and
 * the checkpoint all commit in ONE database transaction. The row is inserted first, with
 * ON CONFLICT DO NOTHING, so a transaction that is already applied (by an earlier run, or by
 * another indexer that briefly believed it led) changes nothing but the cursor.
 */
import { IndexerStateKey } from "@abas/db";
import type { Address } from "@solana/kit";

import type { AccountSnapshot } from "./account-snapshot.js";
import { countPolicyViolation, upsertAgentState } from "./appliers/agent-state.js";
import { applyAttest } from "./appliers/apply-attest.js";
import { applyAttestBatch, applyPublishBatchLeaves } from "./appliers/apply-batch.js";
import type { ApplyContext } from "./appliers/apply-context.js";
import { writeCheckpoint, writeIndexerState } from "./checkpoint-store.js";
import type { IndexerDatabase } from "./indexer-database.js";
import type { Logger } from "./logger.js";
import {
  agentAccountOf,
  findPolicyRefusal,
  type ProgramInstruction,
  type ProgramTransaction,
} from "./transaction-decoder.js";

export type ApplyOutcome = "applied" | "already-applied";

export type ApplyLedgerTransactionInput = Readonly<{
  programId: Address;
  transaction: ProgramTransaction;
  snapshot: AccountSnapshot;
  logger: Logger;
  now: number;
  /** The instance id of the leader applying it, recorded in `processed_transactions.applied_by`. */
  appliedBy: string;
  /** The leader lease's fence, run first in the transaction (leadership/leader-lease.ts); the poller always passes it. */
  fence?: (trx: IndexerDatabase) => Promise<void>;
}>;

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

export async function applyLedgerTransaction(
  db: IndexerDatabase,
  { programId, transaction, snapshot, logger, now, appliedBy, fence }: ApplyLedgerTransactionInput,
): Promise<ApplyOutcome> {
  const failed = transaction.error !== null;
  return await db.transaction().execute(async (trx) => {
    await fence?.(trx);
    const inserted = await trx
      .insertInto("processed_transactions")
      .values({
        signature: transaction.signature,
        slot: Number(transaction.slot),
        failed: failed ? 1 : 0,
        processed_at: now,
        applied_by: appliedBy,
      })
      .onConflict((conflict) => conflict.column("signature").doNothing())
      .returning("signature")
      .executeTakeFirst();
    const checkpoint = { signature: transaction.signature, slot: Number(transaction.slot) };
    if (inserted === undefined) {
      await writeIndexerState(trx, {
        [IndexerStateKey.CursorSignature]: checkpoint.signature,
        [IndexerStateKey.CursorSlot]: String(checkpoint.slot),
      });
      return "already-applied";
    }
    const context: ApplyContext = { db: trx, programId, transaction, snapshot, indexedAt: now, logger };
    if (failed) await applyFailedTransaction(context);
    else for (const instruction of transaction.instructions) await applyInstruction(context, instruction);
    await writeCheckpoint(trx, checkpoint, now);
    return "applied";
  });
}
