import type { Kysely } from "kysely";

/**
 * BehaviorBatch v2 keeps no leaves in the account: the indexer reads them from the batch's
 * `publish_batch_leaves` instructions, chunk by chunk, and holds them here until the last chunk
 * completes the batch and they become `attestations` rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("batch_leaves")
    .addColumn("batch_address", "text", (c) => c.notNull())
    .addColumn("leaf_index", "integer", (c) => c.notNull())
    .addColumn("action_type", "integer", (c) => c.notNull())
    .addColumn("privacy", "integer", (c) => c.notNull())
    .addColumn("stored_hash", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("batch_leaves_pk", ["batch_address", "leaf_index"])
    .execute();
}
