import type { Kysely } from "kysely";

/**
 * The newest ledger time (ledger-time.ts) reads the newest `updated_at` and `last_attested_at` of
 * all agents on every agent profile: with these indexes each is one index lookup, not a pass over
 * the agents table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("agents_updated_at").on("agents").column("updated_at").execute();
  await db.schema.createIndex("agents_last_attested_at").on("agents").column("last_attested_at").execute();
}
