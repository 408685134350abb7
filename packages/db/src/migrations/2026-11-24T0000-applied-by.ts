import type { Kysely } from "kysely";

/**
 * Which indexer applied each ledger transaction: the instance id of the leader whose fenced database
 * transaction wrote the `processed_transactions` row (empty for rows written before this column).
 * It tells an operator which process wrote what, and lets a test prove from the database that a
 * stale leader wrote nothing after it lost the lease.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("processed_transactions")
    .addColumn("applied_by", "text", (c) => c.notNull().defaultTo(""))
    .execute();
}
