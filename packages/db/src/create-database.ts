/**
 * Opens the database: SQLite (better-sqlite3, a file, the embedded default) or PostgreSQL when a
 * `postgres://` URL is given. Both go through the same Kysely query layer.
 */
import { chmodSync, closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import SqliteDatabase from "better-sqlite3";
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  type SqliteDatabase as SqliteDialectDatabase,
} from "kysely";
import pg from "pg";
import type { Database } from "./schema.js";

export type Dialect = "sqlite" | "postgres";

export interface DatabaseHandle {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** Where it lives, without credentials: the SQLite file or the PostgreSQL host and database. */
  readonly description: string;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** `postgres://…` or `postgresql://…` for PostgreSQL; otherwise a SQLite file path (or `:memory:`). */
  readonly url: string;
  /** PostgreSQL pool size. */
  readonly maxConnections?: number;
  /**
   * Told when an idle PostgreSQL connection breaks (server restart, terminated backend). The pool
   * drops that connection and the next query opens a new one; without a listener the error would
   * be unhandled and end the process.
   */
  readonly onConnectionError?: (error: Error) => void;
}

const PG_INT8 = 20;

export function openDatabase(options: OpenDatabaseOptions): DatabaseHandle {
  return isPostgresUrl(options.url) ? openPostgres(options) : openSqlite(options.url);
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//.test(url);
}

/** API key hashes and web sessions live here: owner only. */
const PRIVATE_FILE_MODE = 0o600;
const PRIVATE_DIRECTORY_MODE = 0o700;

/**
 * Creates the file 0600 before SQLite opens it (SQLite would make it 0644; its -wal and -shm files
 * copy the database file's mode), and tightens a file an older version left readable by others.
 */
function createPrivateFile(file: string): void {
  const created = mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  if (created !== undefined) chmodSync(dirname(file), PRIVATE_DIRECTORY_MODE);
  closeSync(openSync(file, "a", PRIVATE_FILE_MODE));
  chmodSync(file, PRIVATE_FILE_MODE);
}

/** Prepared statements kept per SQL text; past this many, the least recently used is dropped. */
const MAX_CACHED_STATEMENTS = 256;

/**
 * The connection as Kysely's SQLite driver sees it, with prepared statements kept by their SQL
 * text: the driver prepares every statement on every call, which costs more than running a small
 * query. A statement still being iterated (busy) is not handed out again; a fresh one is prepared.
 */
function withStatementCache(sqlite: SqliteDatabase.Database): SqliteDialectDatabase {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      const cached = statements.get(sql);
      if (cached !== undefined) statements.delete(sql);
      const statement = cached !== undefined && !cached.busy ? cached : sqlite.prepare(sql);
      if (statements.size >= MAX_CACHED_STATEMENTS) statements.delete(statements.keys().next().value!);
      statements.set(sql, statement);
      return statement;
    },
  };
}

const BUSY_TIMEOUT_MS = 5000;

/**
 * How `readRows` runs a statement on each open database. SQLite files get a read-only connection
 * of their own: a statement runs on it directly, without Kysely's connection queue (which costs as
 * much as a small query), and never inside a transaction another query of the handle has open.
 * PostgreSQL runs it as a named statement on the pool (`preparedOnPool`).
 */
type RowReader = <Row>(text: string, parameters: readonly unknown[]) => Promise<Row[]>;
const rowReaders = new WeakMap<Kysely<Database>, { read: RowReader; dialect: Dialect }>();

/** `?` placeholders as PostgreSQL numbers them: `$1`, `$2`… */
function numberedPlaceholders(text: string): string {
  let count = 0;
  return text.replace(/\?/g, () => `$${(count += 1)}`);
}

/** SQLite reads through Kysely (an in-memory database, which a second connection would not see). */
function throughKysely(db: Kysely<Database>): RowReader {
  return async <Row>(text: string, parameters: readonly unknown[]) =>
    (await db.executeQuery<Row>(CompiledQuery.raw(text, [...parameters]))).rows;
}

/** PostgreSQL's code when a named statement's result columns changed since it was prepared. */
const RESULT_TYPE_CHANGED = "0A000";

/**
 * PostgreSQL reads as named statements: a connection parses each text once, then only binds and
 * runs it. A text whose table changed under it (a migration while this process runs) is prepared
 * again under a new name; texts past MAX_CACHED_STATEMENTS run unnamed (a name never gets two texts).
 */
function preparedOnPool(pool: pg.Pool): RowReader {
  const statements = new Map<string, { name: string; text: string }>();
  let named = 0;
  const prepare = (text: string) => {
    const statement = { name: `abas_read_${(named += 1)}`, text: numberedPlaceholders(text) };
    statements.set(text, statement);
    return statement;
  };
  return async <Row>(text: string, parameters: readonly unknown[]) => {
    const run = async (query: { name?: string; text: string }) =>
      (await pool.query({ ...query, values: [...parameters] })).rows as Row[];
    let statement = statements.get(text);
    if (statement === undefined && statements.size >= MAX_CACHED_STATEMENTS)
      return await run({ text: numberedPlaceholders(text) });
    statement ??= prepare(text);
    try {
      return await run(statement);
    } catch (error) {
      if ((error as { code?: unknown }).code !== RESULT_TYPE_CHANGED) throw error;
      return await run(prepare(text));
    }
  };
}

/**
 * The rows of one read-only statement of a database `openDatabase` opened, with `?` placeholders
 * (the text holds no other question mark). It sees what is committed when it runs.
 */
export async function readRows<Row>(
  db: Kysely<Database>,
  text: string,
  parameters: readonly unknown[],
): Promise<Row[]> {
  return await readerOf(db).read<Row>(text, parameters);
}

/** The dialect of a database `openDatabase` opened, for SQL text `readRows` runs. */
export function dialectOf(db: Kysely<Database>): Dialect {
  return readerOf(db).dialect;
}

function readerOf(db: Kysely<Database>): { read: RowReader; dialect: Dialect } {
  const reader = rowReaders.get(db);
  if (reader === undefined) throw new Error("readRows: the database was not opened with openDatabase");
  return reader;
}

function openSqlite(file: string): DatabaseHandle {
  if (file !== ":memory:") createPrivateFile(file);
  const sqlite = new SqliteDatabase(file);
  // WAL: readers never block the writer; a killed process loses no committed transaction.
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  let reader: SqliteDialectDatabase | undefined;
  // An in-memory database is not shared between connections: its reads go through Kysely.
  rowReaders.set(db, {
    dialect: "sqlite",
    read:
      file === ":memory:"
        ? throughKysely(db)
        : async <Row>(text: string, parameters: readonly unknown[]) => {
            reader ??= withStatementCache(
              new SqliteDatabase(file, { readonly: true, timeout: BUSY_TIMEOUT_MS }),
            );
            return reader.prepare(text).all(parameters) as Row[];
          },
  });
  return {
    db,
    dialect: "sqlite",
    description: `sqlite ${file}`,
    close: async () => {
      rowReaders.delete(db);
      reader?.close();
      await db.destroy();
    },
  };
}

function openPostgres(options: OpenDatabaseOptions): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.maxConnections ?? 10,
    // bigint columns hold slots, unix times and counters: all far below 2^53, so read as numbers.
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === PG_INT8
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  const reportConnectionError = (error: Error) => options.onConnectionError?.(error);
  // Idle connections report on the pool, connections in use (a running query) on themselves:
  // listen on both, so a broken connection fails its query, not the process.
  pool.on("error", reportConnectionError);
  pool.on("connect", (client) => client.on("error", reportConnectionError));
  const url = new URL(options.url);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  rowReaders.set(db, { dialect: "postgres", read: preparedOnPool(pool) });
  return {
    db,
    dialect: "postgres",
    description: `postgres ${url.hostname}:${url.port || 5432}${url.pathname}`,
    close: () => db.destroy(),
  };
}
