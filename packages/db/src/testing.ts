/**
 * Test support shared by every package that tests against the database: a fresh, migrated
 * database per test file (a temporary SQLite file, or a fresh PostgreSQL schema when
 * DATABASE_URL is set) and builders that insert realistic rows with real queries.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { encodeBase58 } from "@abas/program-client";
import type { Kysely } from "kysely";
import pg from "pg";

import { isPostgresUrl, openDatabase, type DatabaseHandle, type Dialect } from "./create-database.js";
import { migrateToLatest } from "./migrate.js";
import type { Database, IndexerStateKey, NewAgentRow, NewAttestationRow, NewBatchRow } from "./schema.js";

export const POSTGRES_SKIP_REASON = "skipped: set DATABASE_URL=postgres://… to run against PostgreSQL";

export interface TestDatabaseTarget {
  readonly dialect: Dialect;
  /** "SQLite" or "PostgreSQL", for test names. */
  readonly label: string;
  /** A reason to skip (node:test's `skip` option), or false. */
  readonly skip: string | false;
}

/** SQLite always; PostgreSQL when DATABASE_URL is a postgres:// URL. Run the same suite on each. */
export function testDatabaseTargets(env: NodeJS.ProcessEnv = process.env): TestDatabaseTarget[] {
  const postgresUrl = env.DATABASE_URL;
  return [
    { dialect: "sqlite", label: "SQLite", skip: false },
    {
      dialect: "postgres",
      label: "PostgreSQL",
      skip: postgresUrl !== undefined && isPostgresUrl(postgresUrl) ? false : POSTGRES_SKIP_REASON,
    },
  ];
}

export interface TestDatabase {
  readonly handle: DatabaseHandle;
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** What `openDatabase` takes: the SQLite file, or the PostgreSQL URL pinned to the test schema. */
  readonly url: string;
  /** Environment for a child process (a CLI, a server) to open this same database. */
  readonly env: Readonly<Record<string, string>>;
  /** Closes the handle and deletes the file or drops the schema. */
  dispose(): Promise<void>;
}

/** A URL whose connections use `schema` first (libpq's `options=-c search_path=...`). */
export function withSearchPath(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set("options", `-c search_path=${schema}`);
  return parsed.toString();
}

export async function openTestDatabase(
  dialect: Dialect,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TestDatabase> {
  return dialect === "sqlite" ? openSqliteTestDatabase() : openPostgresTestDatabase(env);
}

async function openSqliteTestDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), "abas-db-test-"));
  // The file name the server and the CLI derive from DATA_DIR.
  const url = join(dataDir, "abas.sqlite");
  const handle = openDatabase({ url });
  await migrateToLatest(handle);
  return {
    handle,
    db: handle.db,
    dialect: "sqlite",
    url,
    env: { DATA_DIR: dataDir },
    dispose: async () => {
      await handle.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function openPostgresTestDatabase(env: NodeJS.ProcessEnv): Promise<TestDatabase> {
  const baseUrl = env.DATABASE_URL;
  if (baseUrl === undefined || !isPostgresUrl(baseUrl)) throw new Error(POSTGRES_SKIP_REASON);
  // One schema per test database: parallel test files and CI runs never see each other's rows.
  const schema = `test_${randomBytes(6).toString("hex")}`;
  await runAdminStatement(baseUrl, `create schema ${schema}`);
  const url = withSearchPath(baseUrl, schema);
  const handle = openDatabase({ url, maxConnections: 5 });
  try {
    await migrateToLatest(handle);
  } catch (error) {
    await handle.close();
    await runAdminStatement(baseUrl, `drop schema if exists ${schema} cascade`);
    throw error;
  }
  return {
    handle,
    db: handle.db,
    dialect: "postgres",
    url,
    env: { DATABASE_URL: url },
    dispose: async () => {
      await handle.close();
      await runAdminStatement(baseUrl, `drop schema if exists ${schema} cascade`);
    },
  };
}

async function runAdminStatement(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

// ---- Builders: realistic values, every column filled, overridable. ----

export function randomAddress(): string {
  return encodeBase58(randomBytes(32));
}

export function randomSignature(): string {
  return encodeBase58(randomBytes(64));
}

export function randomHash(): string {
  return randomBytes(32).toString("hex");
}

/** A registered agent, active, allowed every action type, registered at `registered_at`. */
export function buildAgent(overrides: Partial<NewAgentRow> = {}): NewAgentRow {
  const registeredAt = overrides.registered_at ?? 1_763_700_000;
  return {
    agent: randomAddress(),
    address: randomAddress(),
    operator: randomAddress(),
    status: "active",
    allowed_action_types: 0b1111,
    registered_at: registeredAt,
    registered_slot: 1,
    updated_at: registeredAt,
    attestation_count: 0,
    batch_count: 0,
    batch_item_count: 0,
    last_attested_at: null,
    policy_violation_count: 0,
    state_slot: 1,
    ...overrides,
  };
}

export async function seedAgent(
  db: Kysely<Database>,
  overrides: Partial<NewAgentRow> = {},
): Promise<NewAgentRow> {
  const agent = buildAgent(overrides);
  await db.insertInto("agents").values(agent).execute();
  return agent;
}

/** A single attestation (or, with `batch_address` and `batch_index`, a batch item). */
export function buildAttestation(
  overrides: Partial<NewAttestationRow> & Pick<NewAttestationRow, "slot" | "timestamp">,
): NewAttestationRow {
  const isBatchItem = overrides.batch_address != null && overrides.batch_index != null;
  return {
    id: isBatchItem ? `${overrides.batch_address}:${overrides.batch_index}` : randomAddress(),
    kind: isBatchItem ? "batch" : "single",
    agent: randomAddress(),
    operator: randomAddress(),
    action_type: "ToolCall",
    privacy: 0,
    stored_hash: randomHash(),
    agent_signature: randomSignature(),
    tx_signature: randomSignature(),
    batch_address: null,
    batch_index: null,
    merkle_root: isBatchItem ? randomHash() : null,
    indexed_at: Date.now(),
    ...overrides,
  };
}

/** Rows per INSERT: under SQLite's and PostgreSQL's bound-parameter limits at 15 columns. */
const INSERT_CHUNK_ROWS = 1000;

/** Inserts in one transaction, in multi-row statements; `seq` follows the array's order. */
export async function seedAttestations(
  db: Kysely<Database>,
  rows: readonly NewAttestationRow[],
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < rows.length; start += INSERT_CHUNK_ROWS) {
      await trx
        .insertInto("attestations")
        .values(rows.slice(start, start + INSERT_CHUNK_ROWS))
        .execute();
    }
  });
}

export interface SeedBatchOptions {
  readonly agent: string;
  readonly operator: string;
  readonly slot: number;
  readonly timestamp: number;
  readonly itemCount: number;
  readonly actionTypes?: readonly NewAttestationRow["action_type"][];
  readonly privacy?: boolean;
}

/** A complete, verified batch: its commitment row and its items in `attestations`. */
export async function seedBatch(
  db: Kysely<Database>,
  options: SeedBatchOptions,
): Promise<{ batch: NewBatchRow; items: NewAttestationRow[] }> {
  const address = randomAddress();
  const merkleRoot = randomHash();
  const txSignature = randomSignature();
  const agentSignature = randomSignature();
  const types = options.actionTypes ?? ["Decision"];
  const items = Array.from({ length: options.itemCount }, (_, index) =>
    buildAttestation({
      agent: options.agent,
      operator: options.operator,
      slot: options.slot,
      timestamp: options.timestamp,
      batch_address: address,
      batch_index: index,
      merkle_root: merkleRoot,
      tx_signature: txSignature,
      agent_signature: agentSignature,
      action_type: types[index % types.length],
      privacy: options.privacy ? 1 : 0,
    }),
  );
  const batch: NewBatchRow = {
    address,
    agent: options.agent,
    operator: options.operator,
    merkle_root: merkleRoot,
    item_count: options.itemCount,
    action_types: 0,
    agent_signature: agentSignature,
    tx_signature: txSignature,
    slot: options.slot,
    timestamp: options.timestamp,
    leaves_published: options.itemCount,
    complete: 1,
    items_indexed: 1,
  };
  await db.insertInto("batches").values(batch).execute();
  await seedAttestations(db, items);
  return { batch, items };
}

/** Writes indexer_state entries the way the indexer does (upsert by key). */
export async function setIndexerState(
  db: Kysely<Database>,
  entries: Partial<Record<IndexerStateKey, string | number>>,
): Promise<void> {
  for (const [key, value] of Object.entries(entries)) {
    await db
      .insertInto("indexer_state")
      .values({ key, value: String(value) })
      .onConflict((oc) => oc.column("key").doUpdateSet({ value: String(value) }))
      .execute();
  }
}
