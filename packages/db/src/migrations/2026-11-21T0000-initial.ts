import type { Kysely } from "kysely";
import type { Dialect } from "../create-database.js";

/** The first schema (see schema.ts for what each column means). */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("agents")
    .addColumn("agent", "text", (c) => c.primaryKey())
    .addColumn("address", "text", (c) => c.notNull().unique())
    .addColumn("operator", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("allowed_action_types", "integer", (c) => c.notNull())
    .addColumn("registered_at", "bigint", (c) => c.notNull())
    .addColumn("registered_slot", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addColumn("attestation_count", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("batch_count", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("batch_item_count", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("last_attested_at", "bigint")
    .addColumn("policy_violation_count", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("state_slot", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("agents_operator").on("agents").column("operator").execute();

  await db.schema
    .createTable("attestations")
    .addColumn("seq", dialect === "postgres" ? "bigserial" : "integer", (c) =>
      dialect === "postgres" ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn("id", "text", (c) => c.notNull().unique())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("agent", "text", (c) => c.notNull())
    .addColumn("operator", "text", (c) => c.notNull())
    .addColumn("action_type", "text", (c) => c.notNull())
    .addColumn("privacy", "integer", (c) => c.notNull())
    .addColumn("stored_hash", "text", (c) => c.notNull())
    .addColumn("agent_signature", "text", (c) => c.notNull())
    .addColumn("tx_signature", "text", (c) => c.notNull())
    .addColumn("slot", "bigint", (c) => c.notNull())
    .addColumn("timestamp", "bigint", (c) => c.notNull())
    .addColumn("batch_address", "text")
    .addColumn("batch_index", "integer")
    .addColumn("merkle_root", "text")
    .addColumn("indexed_at", "bigint", (c) => c.notNull())
    .execute();
  // "Newest first" keyset, alone and under each filter the API offers.
  const indexes: [string, string[]][] = [
    ["attestations_order", ["slot", "seq"]],
    ["attestations_agent", ["agent", "slot", "seq"]],
    ["attestations_operator", ["operator", "slot", "seq"]],
    ["attestations_action_type", ["action_type", "slot", "seq"]],
    ["attestations_batch", ["batch_address", "batch_index"]],
    ["attestations_stored_hash", ["stored_hash"]],
    ["attestations_tx", ["tx_signature"]],
  ];
  for (const [name, columns] of indexes) {
    await db.schema.createIndex(name).on("attestations").columns(columns).execute();
  }

  await db.schema
    .createTable("batches")
    .addColumn("address", "text", (c) => c.primaryKey())
    .addColumn("agent", "text", (c) => c.notNull())
    .addColumn("operator", "text", (c) => c.notNull())
    .addColumn("merkle_root", "text", (c) => c.notNull())
    .addColumn("item_count", "integer", (c) => c.notNull())
    .addColumn("action_types", "integer", (c) => c.notNull())
    .addColumn("agent_signature", "text", (c) => c.notNull())
    .addColumn("tx_signature", "text", (c) => c.notNull())
    .addColumn("slot", "bigint", (c) => c.notNull())
    .addColumn("timestamp", "bigint", (c) => c.notNull())
    .addColumn("leaves_published", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("complete", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("items_indexed", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("batches_agent").on("batches").columns(["agent", "slot"]).execute();

  await db.schema
    .createTable("processed_transactions")
    .addColumn("signature", "text", (c) => c.primaryKey())
    .addColumn("slot", "bigint", (c) => c.notNull())
    .addColumn("failed", "integer", (c) => c.notNull())
    .addColumn("processed_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("processed_transactions_slot")
    .on("processed_transactions")
    .column("slot")
    .execute();

  await db.schema
    .createTable("indexer_state")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("prefix", "text", (c) => c.notNull())
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("owner", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_used_at", "bigint")
    .addColumn("revoked_at", "bigint")
    .execute();
  await db.schema.createIndex("api_keys_owner").on("api_keys").column("owner").execute();
}
