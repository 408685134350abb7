import type { Kysely } from "kysely";

/**
 * The `storedHash` filter's index in the order pages walk, newest first, as the other filters'
 * indexes are: on `stored_hash` alone, a page sorted every attestation sharing the hash (batch
 * leaves may repeat one), so each page cost the whole set.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("attestations_stored_hash").execute();
  await db.schema
    .createIndex("attestations_stored_hash")
    .on("attestations")
    .columns(["stored_hash", "slot", "seq"])
    .execute();
}
