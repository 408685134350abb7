import type { NewAttestationRow } from "@abas/db";

import type { IndexerDatabase } from "../indexer-database.js";

/** Rows per insert: 15 columns a row, well inside every dialect's limit on bound parameters. */
const ROWS_PER_INSERT = 500;

/**
 * Inserts a chunk's attestation rows, in the order given (their `seq`, the list's order, follows
 * it), a few statements for the whole chunk rather than one per ledger transaction: on PostgreSQL
 * each statement is a round trip. An id already present is left alone, so a replay after a manual
 * fix-up does not fail on it.
 */
export async function insertAttestationRows(
  db: IndexerDatabase,
  rows: readonly NewAttestationRow[],
): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    await db
      .insertInto("attestations")
      .values(rows.slice(start, start + ROWS_PER_INSERT))
      .onConflict((conflict) => conflict.column("id").doNothing())
      .execute();
  }
}
