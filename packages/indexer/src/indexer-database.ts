import type { DatabaseHandle } from "@abas/db";

/**
 * The Kysely instance of the ABAS database, or a transaction on it (a transaction is usable
 * wherever the database is). Taken from @abas/db so the indexer needs no query library of its own.
 */
export type IndexerDatabase = DatabaseHandle["db"];
