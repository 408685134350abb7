import type { Kysely } from "kysely";

/**
 * API keys are looked up by their display prefix, then their hashes are compared in constant time
 * (see api-keys.ts): the prefix needs an index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("api_keys_prefix").on("api_keys").column("prefix").execute();
}
