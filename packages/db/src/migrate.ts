/** Applies the migrations in order; the one migration set serves both dialects. */
import { sql, type Kysely } from "kysely";
import { Migrator, type Migration, type MigrationResultSet } from "kysely/migration";
import type { DatabaseHandle, Dialect } from "./create-database.js";
import * as initial from "./migrations/2026-11-21T0000-initial.js";
import * as apiKeyPrefix from "./migrations/2026-11-21T0100-api-key-prefix.js";
import * as webSignIn from "./migrations/2026-11-21T0200-web-sign-in.js";
import * as batchLeaves from "./migrations/2026-11-23T0000-batch-leaves.js";
import * as indexerLeaderLease from "./migrations/2026-11-23T0100-indexer-leader-lease.js";
import * as webSecrets from "./migrations/2026-11-23T0200-web-secrets.js";
import * as appliedBy from "./migrations/2026-11-24T0000-applied-by.js";
import * as agentTimes from "./migrations/2026-11-26T0000-agent-times.js";
import * as storedHashOrder from "./migrations/2026-11-28T0000-stored-hash-order.js";

type DialectMigration = { up(db: Kysely<unknown>, dialect: Dialect): Promise<void> };

/** Every migration, by name; names sort in the order they apply. */
const MIGRATIONS: Record<string, DialectMigration> = {
  "2026-11-21T0000-initial": initial,
  "2026-11-21T0100-api-key-prefix": apiKeyPrefix,
  "2026-11-21T0200-web-sign-in": webSignIn,
  "2026-11-23T0000-batch-leaves": batchLeaves,
  "2026-11-23T0100-indexer-leader-lease": indexerLeaderLease,
  "2026-11-23T0200-web-secrets": webSecrets,
  "2026-11-24T0000-applied-by": appliedBy,
  "2026-11-26T0000-agent-times": agentTimes,
  "2026-11-28T0000-stored-hash-order": storedHashOrder,
};

export async function migrateToLatest(handle: DatabaseHandle): Promise<MigrationResultSet> {
  const migrations: Record<string, Migration> = {};
  for (const [name, migration] of Object.entries(MIGRATIONS)) {
    migrations[name] = { up: (db) => migration.up(db, handle.dialect) };
  }
  const migrator = new Migrator({
    db: handle.db,
    provider: { getMigrations: async () => migrations },
    // Kysely looks for its bookkeeping tables in every schema unless told which one: a database
    // whose search_path points at a fresh schema (one per test run, one per tenant) would find
    // another schema's table and skip its own migrations.
    ...(handle.dialect === "postgres" ? { migrationTableSchema: await currentSchema(handle.db) } : {}),
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}

async function currentSchema<T>(db: Kysely<T>): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (!schema) throw new Error("PostgreSQL has no current schema: check the search_path");
  return schema;
}
