import type { Kysely } from "kysely";

/**
 * Keys the web app signs with (its sign-in cookie), in the database so that every replica behind a
 * load balancer signs and checks with the same key without any configuration. Created on first use.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("web_secrets")
    .addColumn("name", "text", (c) => c.primaryKey())
    // Hex of 32 random bytes.
    .addColumn("value", "text", (c) => c.notNull())
    .execute();
}
