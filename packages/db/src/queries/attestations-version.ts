/**
 * A token that changes whenever the indexed attestations do: the highest `seq` (every insert raises
 * it, a reindex empties the table first) together with the indexer's checkpoint (written in the same
 * transaction as the rows it follows, so a transaction that commits after one with a higher `seq`,
 * as PostgreSQL's sequences allow, still changes the token). Response caches compare it.
 */
import { sql, type Kysely } from "kysely";

import { IndexerStateKey, type Database } from "../schema.js";

export async function readAttestationsVersion(db: Kysely<Database>): Promise<string> {
  const row = await db
    .selectNoFrom([
      sql<number | null>`(select max(seq) from attestations)`.as("seq"),
      sql<string | null>`(select value from indexer_state where key = ${IndexerStateKey.CursorSignature})`.as(
        "checkpoint",
      ),
    ])
    .executeTakeFirstOrThrow();
  return `${row.seq ?? 0}:${row.checkpoint ?? ""}`;
}
