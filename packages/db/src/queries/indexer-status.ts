/** The indexer's progress as it recorded it in `indexer_state` (see IndexerStateKey). */
import type { Kysely } from "kysely";

import { IndexerStateKey, type Database } from "../schema.js";

export interface IndexerStatus {
  /** The ledger slot up to which everything is applied; null when the indexer never completed a poll. */
  readonly indexedSlot: number | null;
  /** The newest applied program transaction and its slot. */
  readonly cursorSignature: string | null;
  readonly cursorSlot: number | null;
  /** Unix milliseconds (wall clock of the indexer) of the last new transaction applied. */
  readonly lastIngestAt: number | null;
  /** Unix milliseconds of the last successful poll. */
  readonly heartbeatAt: number | null;
  /** The last error and when (unix ms); null when the last poll succeeded. */
  readonly lastError: string | null;
  readonly lastErrorAt: number | null;
  /** The indexer instance that leads. */
  readonly leader: string | null;
  /** Why the index no longer matches the ledger; null when it does (IndexerStateKey.LedgerDivergence). */
  readonly divergence: string | null;
}

function integerOrNull(value: string | undefined): number | null {
  if (value === undefined || value.trim() === "") return null;
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : null;
}

function textOrNull(value: string | undefined): string | null {
  return value === undefined || value === "" ? null : value;
}

export async function getIndexerStatus(db: Kysely<Database>): Promise<IndexerStatus> {
  const rows = await db.selectFrom("indexer_state").select(["key", "value"]).execute();
  const state = new Map(rows.map((row) => [row.key, row.value]));
  return {
    indexedSlot: integerOrNull(state.get(IndexerStateKey.IndexedSlot)),
    cursorSignature: textOrNull(state.get(IndexerStateKey.CursorSignature)),
    cursorSlot: integerOrNull(state.get(IndexerStateKey.CursorSlot)),
    lastIngestAt: integerOrNull(state.get(IndexerStateKey.LastIngestAt)),
    heartbeatAt: integerOrNull(state.get(IndexerStateKey.HeartbeatAt)),
    lastError: textOrNull(state.get(IndexerStateKey.LastError)),
    lastErrorAt:
      textOrNull(state.get(IndexerStateKey.LastError)) === null
        ? null
        : integerOrNull(state.get(IndexerStateKey.LastErrorAt)),
    leader: textOrNull(state.get(IndexerStateKey.Leader)),
    divergence: textOrNull(state.get(IndexerStateKey.LedgerDivergence)),
  };
}

/** Resolves when the database answers a trivial query; rejects otherwise. */
export async function pingDatabase(db: Kysely<Database>): Promise<void> {
  await db.selectFrom("indexer_state").select("key").limit(1).execute();
}
