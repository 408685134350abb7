/**
 * The indexer's checkpoint and status in `indexer_state`. The checkpoint is written in the same
 * database transaction as the ledger transaction it follows, so it can never run ahead of (or
 * behind) what was applied.
 */
import { IndexerStateKey } from "@abas/db";

import type { IndexerDatabase } from "./indexer-database.js";

export type Checkpoint = Readonly<{ signature: string; slot: number }>;

/** Upserts key/value pairs. */
export async function writeIndexerState(
  db: IndexerDatabase,
  values: Readonly<Record<string, string>>,
): Promise<void> {
  const rows = Object.entries(values).map(([key, value]) => ({ key, value }));
  if (rows.length === 0) return;
  await db
    .insertInto("indexer_state")
    .values(rows)
    .onConflict((conflict) =>
      conflict.column("key").doUpdateSet((eb) => ({ value: eb.ref("excluded.value") })),
    )
    .execute();
}

export async function readIndexerState(db: IndexerDatabase): Promise<Map<string, string>> {
  const rows = await db.selectFrom("indexer_state").select(["key", "value"]).execute();
  return new Map(rows.map((row) => [row.key, row.value]));
}

export async function readCheckpoint(db: IndexerDatabase): Promise<Checkpoint | undefined> {
  const state = await readIndexerState(db);
  const signature = state.get(IndexerStateKey.CursorSignature);
  const slot = state.get(IndexerStateKey.CursorSlot);
  return signature === undefined || signature === "" ? undefined : { signature, slot: Number(slot ?? 0) };
}

export async function writeCheckpoint(
  db: IndexerDatabase,
  checkpoint: Checkpoint,
  ingestedAt: number,
): Promise<void> {
  await writeIndexerState(db, {
    [IndexerStateKey.CursorSignature]: checkpoint.signature,
    [IndexerStateKey.CursorSlot]: String(checkpoint.slot),
    [IndexerStateKey.LastIngestAt]: String(ingestedAt),
  });
}

/** After a poll that reached the ledger's head: alive, up to `indexedSlot`, no error. */
export async function writeHeartbeat(db: IndexerDatabase, indexedSlot: bigint, at: number): Promise<void> {
  await writeIndexerState(db, {
    [IndexerStateKey.HeartbeatAt]: String(at),
    [IndexerStateKey.IndexedSlot]: indexedSlot.toString(),
    [IndexerStateKey.LastError]: "",
  });
}

export async function writeLastError(db: IndexerDatabase, message: string, at: number): Promise<void> {
  await writeIndexerState(db, {
    [IndexerStateKey.LastError]: message,
    [IndexerStateKey.LastErrorAt]: String(at),
  });
}
