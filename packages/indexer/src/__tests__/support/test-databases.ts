/**
 * The databases every suite runs against: SQLite (a temporary file) always, PostgreSQL when
 * DATABASE_URL is set. Each PostgreSQL database is a fresh schema `test_<random>` (chosen through
 * `search_path` in the connection URL, so child processes use it too), dropped afterwards.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { isPostgresUrl, openDatabase, type DatabaseHandle } from "@abas/db";

export type TestDatabaseKind = "sqlite" | "postgres";

export type TestDatabase = Readonly<{
  kind: TestDatabaseKind;
  /** What DATABASE_URL must be for an indexer process to use this database. */
  url: string;
  /** Opens a new connection (pool); the caller closes it. */
  open: () => DatabaseHandle;
  /** Deletes the database. */
  dispose: () => Promise<void>;
}>;

const POSTGRES_URL = process.env.DATABASE_URL;

export const POSTGRES_SKIP_MESSAGE = "set DATABASE_URL=postgres://… to run against PostgreSQL";

/** `skip` for node:test: false, or why the PostgreSQL variant does not run. */
export function skipUnless(kind: TestDatabaseKind): false | string {
  if (kind === "sqlite") return false;
  return POSTGRES_URL !== undefined && isPostgresUrl(POSTGRES_URL) ? false : POSTGRES_SKIP_MESSAGE;
}

export const DATABASE_KINDS: readonly TestDatabaseKind[] = ["sqlite", "postgres"];

function withSearchPath(url: string, schema: string): string {
  const separator = url.includes("?") ? "&" : "?";
  return `${url}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

export async function createTestDatabase(kind: TestDatabaseKind): Promise<TestDatabase> {
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "abas-indexer-db-"));
    const url = join(dir, "abas.sqlite");
    return {
      kind,
      url,
      open: () => openDatabase({ url }),
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (POSTGRES_URL === undefined) throw new Error(POSTGRES_SKIP_MESSAGE);
  const schema = `test_${randomBytes(6).toString("hex")}`;
  const admin = openDatabase({ url: POSTGRES_URL, maxConnections: 1 });
  await admin.db.schema.createSchema(schema).execute();
  const url = withSearchPath(POSTGRES_URL, schema);
  return {
    kind,
    url,
    open: () => openDatabase({ url, maxConnections: 4 }),
    dispose: async () => {
      await admin.db.schema.dropSchema(schema).cascade().execute();
      await admin.close();
    },
  };
}
