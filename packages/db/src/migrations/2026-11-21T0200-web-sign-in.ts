import type { Kysely } from "kysely";

/**
 * The web app's Sign-In With Solana state, kept in the database (not in a server's memory) so that
 * several replicas behind a load balancer on PostgreSQL share it: a nonce issued by one replica can
 * be redeemed at another, exactly once, and a session opened at one is known to all.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("web_sign_in_nonces")
    .addColumn("nonce", "text", (c) => c.primaryKey())
    // SHA-256 (hex) of the browser's sign-in cookie: the nonce is only redeemable by that browser.
    .addColumn("binding_hash", "text", (c) => c.notNull())
    .addColumn("issued_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("used_at", "bigint")
    .execute();
  await db.schema
    .createIndex("web_sign_in_nonces_expiry")
    .on("web_sign_in_nonces")
    .column("expires_at")
    .execute();

  await db.schema
    .createTable("web_sessions")
    // SHA-256 (hex) of the session cookie's token; the token itself is never stored.
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("address", "text", (c) => c.notNull())
    .addColumn("csrf_token", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("web_sessions_expiry").on("web_sessions").column("expires_at").execute();
}
