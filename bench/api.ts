/**
 * REST API throughput and latency at 1,000,000 attestations, on SQLite and (when DATABASE_URL is a
 * postgres:// URL) on PostgreSQL: the bare GET /api/v1/ping, the first page of
 * GET /api/v1/attestations?limit=20 (with an API key), a page deep in the listing by cursor, the
 * list filtered by agent and by action type, and pages by cursors spread over the whole listing
 * (distinct URLs, so the server's page cache cannot answer most of them). Each route's requests/s
 * is also given as a share of ping's, measured in rounds alternating with the route's. The rows are inserted by set-based
 * INSERT … SELECT statements; the server runs as a child process (`abas-server`), autocannon in
 * this process. Writes bench/results/api.json and the figures in docs/api.md.
 *
 *   npm run bench:api
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/<database> npm run bench:api
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";

import autocannon, { type Result } from "autocannon";
import { sql, type RawBuilder } from "kysely";

import {
  createApiKey,
  encodeCursor,
  isPostgresUrl,
  listAttestations,
  migrateToLatest,
  openDatabase,
  type DatabaseHandle,
  type Dialect,
  type NewAgentRow,
} from "@abas/db";
import { withSearchPath } from "@abas/db/testing";

import { processCpuMs } from "./process-cpu.js";

const COMMAND = "npm run bench:api";
const SIZES = [1_000_000] as const;
const AGENT_COUNT = 500;
const OPERATOR_COUNT = 50;
/** Agent slots of the Zipf table the fill draws agents from. */
const FLEET_SLOTS = 10_000;
/** The rank (by activity) of the agent of the filtered route. */
const FILTER_AGENT_RANK = 20;
const INSERT_STATEMENT_ROWS = 100_000;
const CONNECTIONS = 10;
/** Rounds of each route, each after a round of ping of the same length. */
const ROUNDS = 3;
const ROUND_SECONDS = 2;
const WARMUP_SECONDS = 1;
/**
 * Distinct cursor pages of the uncached route, requested in turn: twice what the server's page
 * cache holds, so a least-recently-used cache answers none of them.
 */
const DISTINCT_CURSORS = 2_000;
const BENCH_SCHEMA = "abas_bench_api";
/** High enough that the benchmark measures serving, not the limiter's refusals. */
const BENCH_RATE_LIMIT_PER_MINUTE = 1_000_000_000;

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SERVER_BIN = join(ROOT, "packages/server/src/bin.ts");
const RESULTS_FILE = join(ROOT, "bench/results/api.json");
const DOCS_FILE = join(ROOT, "docs/api.md");
const DOCS_START = "<!-- bench:api:start -->";
const DOCS_END = "<!-- bench:api:end -->";

// ---- Synthetic but realistic data ----

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** Base58-looking text of the length real addresses (44) have. */
function randomBase58(length: number): string {
  const bytes = randomBytes(length);
  let text = "";
  for (const byte of bytes) text += BASE58[byte % 58];
  return text;
}

/** Agents; the fleet's slot table gives each agent a share of the rows by its Zipf weight. */
function buildFleet(startTime: number): NewAgentRow[] {
  const operators = Array.from({ length: OPERATOR_COUNT }, () => randomBase58(44));
  return Array.from({ length: AGENT_COUNT }, (_, i): NewAgentRow => ({
    agent: randomBase58(44),
    address: randomBase58(44),
    operator: operators[i % OPERATOR_COUNT]!,
    status: i % 50 === 49 ? "suspended" : "active",
    allowed_action_types: 0b1111,
    registered_at: startTime - 86_400 * (1 + (i % 300)),
    registered_slot: 1,
    updated_at: startTime,
    attestation_count: 0,
    batch_count: 0,
    batch_item_count: 0,
    last_attested_at: null,
    policy_violation_count: i % 7,
    state_slot: 1,
  }));
}

/**
 * `bench_fleet_slots(j, agent, operator)`: FLEET_SLOTS rows, agent i holding a share proportional
 * to 1/(i+1)^1.1, so a row picking slot `hash(n) % FLEET_SLOTS` picks a few agents most of the time,
 * as in a real fleet. A table of the throwaway benchmark database only.
 */
async function createFleetSlots(handle: DatabaseHandle, agents: readonly NewAgentRow[]): Promise<void> {
  const weights = agents.map((_, i) => 1 / Math.pow(i + 1, 1.1));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const rows: { j: number; agent: string; operator: string }[] = [];
  let running = 0;
  agents.forEach((agent, i) => {
    running += weights[i]! / total;
    const end =
      i === agents.length - 1 ? FLEET_SLOTS : Math.max(rows.length + 1, Math.round(running * FLEET_SLOTS));
    while (rows.length < end) rows.push({ j: rows.length, agent: agent.agent, operator: agent.operator });
  });
  await sql`create table bench_fleet_slots (j integer primary key, agent text not null, operator text not null)`.execute(
    handle.db,
  );
  for (let start = 0; start < rows.length; start += 1_000) {
    const values = rows
      .slice(start, start + 1_000)
      .map((row) => sql`(${row.j}, ${row.agent}, ${row.operator})`);
    await sql`insert into bench_fleet_slots (j, agent, operator) values ${sql.join(values)}`.execute(
      handle.db,
    );
  }
}

/** How each dialect spells the few things the set-based fill needs. */
interface FillDialect {
  /** `n` from `first` to `last` as a row source with column `n`. */
  series(first: number, last: number): RawBuilder<unknown>;
  /** Random hex-like text of `length` characters, a fresh value per row. */
  randomText(length: number): RawBuilder<string>;
  /** `value` as text, left-padded with zeros to `length`. */
  padded(value: RawBuilder<unknown>, length: number): RawBuilder<string>;
}

const FILL_DIALECTS: Record<Dialect, FillDialect> = {
  sqlite: {
    series: (first, last) =>
      sql`(with recursive series(n) as (select ${sql.lit(first)} union all select n + 1 from series where n < ${sql.lit(last)}) select n from series)`,
    randomText: (length) =>
      sql`substr(lower(hex(randomblob(${sql.lit(Math.ceil(length / 2))}))), 1, ${sql.lit(length)})`,
    padded: (value, length) => sql`printf(${sql.lit(`%0${length}d`)}, ${value})`,
  },
  postgres: {
    series: (first, last) =>
      sql`(select n from generate_series(${sql.lit(first)}::bigint, ${sql.lit(last)}::bigint) as series(n))`,
    randomText: (length) =>
      sql`substr(${sql.join(
        Array.from({ length: Math.ceil(length / 32) }, () => sql`md5(random()::text)`),
        sql` || `,
      )}, 1, ${sql.lit(length)})`,
    padded: (value, length) => sql`lpad((${value})::text, ${sql.lit(length)}, '0')`,
  },
};

/**
 * Inserts attestations `first`..`last` (row numbers) in one set-based statement: singles, and in
 * every fourth group of 50 rows a batch of 50 items sharing a slot, address and root (about a
 * quarter of the rows, as in a fleet that batches); action types 45/25/20/10 % ToolCall,
 * ModelInvocation, Decision, Transaction; 15 % private; 20 slots between transactions.
 */
async function insertAttestations(
  handle: DatabaseHandle,
  first: number,
  last: number,
  clock: { startSlot: number; startTime: number },
): Promise<void> {
  const dialect = FILL_DIALECTS[handle.dialect];
  const inBatch = sql`(n / 50) % 4 = 3`;
  const group = sql`(n / 50)`;
  // The row number that sets slot and agent: shared by every item of a batch.
  const key = sql`(case when ${inBatch} then ${group} * 50 + 49 else n end)`;
  const roll = sql`((n * 2654435761) % 100)`;
  await sql`
    insert into attestations (id, kind, agent, operator, action_type, privacy, stored_hash, agent_signature,
      tx_signature, slot, timestamp, batch_address, batch_index, merkle_root, indexed_at)
    select
      case when ${inBatch} then ${dialect.padded(group, 44)} || ':' || (n % 50) else ${dialect.randomText(44)} end,
      case when ${inBatch} then 'batch' else 'single' end,
      fleet.agent,
      fleet.operator,
      case when ${roll} < 45 then 'ToolCall' when ${roll} < 70 then 'ModelInvocation'
        when ${roll} < 90 then 'Decision' else 'Transaction' end,
      case when (n * 40503) % 100 < 15 then 1 else 0 end,
      ${dialect.randomText(64)},
      ${dialect.randomText(88)},
      ${dialect.randomText(88)},
      ${sql.lit(clock.startSlot)} + 20 * ${key},
      ${sql.lit(clock.startTime)} + (20 * ${key} * 400) / 1000,
      case when ${inBatch} then ${dialect.padded(group, 44)} end,
      case when ${inBatch} then n % 50 end,
      case when ${inBatch} then ${dialect.padded(group, 64)} end,
      ${sql.lit(Date.now())}
    from ${dialect.series(first, last)} as rows
    join bench_fleet_slots as fleet on fleet.j = (${key} * 2246822519) % ${sql.lit(FLEET_SLOTS)}
  `.execute(handle.db);
}

/**
 * The non-unique indexes of `attestations` with the statements that create them, as the database
 * itself reports them (the unique ones stay: they are constraints).
 */
async function secondaryIndexes(handle: DatabaseHandle): Promise<{ name: string; definition: string }[]> {
  const { rows } =
    handle.dialect === "sqlite"
      ? await sql<{ name: string; definition: string }>`select name, sql as definition from sqlite_master
          where type = 'index' and tbl_name = 'attestations' and sql is not null and sql not like 'CREATE UNIQUE%'`.execute(
          handle.db,
        )
      : await sql<{
          name: string;
          definition: string;
        }>`select indexname as name, indexdef as definition from pg_indexes
          where tablename = 'attestations' and schemaname = current_schema() and indexdef not like 'CREATE UNIQUE%'`.execute(
          handle.db,
        );
  return rows;
}

/**
 * Fills up to `count` rows in statements of INSERT_STATEMENT_ROWS, as a bulk load does: the
 * secondary indexes are dropped first and built again from their own definitions afterwards
 * (sorting once is far cheaper than a million inserts at random places). Returns the seconds.
 */
async function fill(
  handle: DatabaseHandle,
  filled: number,
  count: number,
  clock: { startSlot: number; startTime: number },
): Promise<number> {
  const started = performance.now();
  const indexes = await secondaryIndexes(handle);
  for (const index of indexes) await sql`drop index ${sql.id(index.name)}`.execute(handle.db);
  for (let first = filled + 1; first <= count; first += INSERT_STATEMENT_ROWS) {
    await insertAttestations(handle, first, Math.min(count, first + INSERT_STATEMENT_ROWS - 1), clock);
  }
  for (const index of indexes) await sql.raw(index.definition).execute(handle.db);
  // What a running PostgreSQL's autovacuum would have done by then: statistics for the planner.
  if (handle.dialect === "postgres") await sql`vacuum analyze attestations`.execute(handle.db);
  return (performance.now() - started) / 1000;
}

// ---- The server under test ----

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface ServerProcess {
  readonly url: string;
  /** CPU time the server process has used (user and system), in ms; undefined where /proc is not. */
  cpuMs(): number | undefined;
  stop(): Promise<void>;
}

/** The database the server opens: `DATA_DIR` (SQLite) or `DATABASE_URL` (PostgreSQL). */
async function startServerProcess(databaseEnv: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), SERVER_BIN], {
    env: {
      PATH: process.env.PATH,
      // The repository's source condition (.npmrc), so the server runs from the TypeScript sources.
      NODE_OPTIONS: process.env.NODE_OPTIONS,
      ...databaseEnv,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      RATE_LIMIT_PER_MINUTE: String(BENCH_RATE_LIMIT_PER_MINUTE),
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const url = `http://127.0.0.1:${port}/api/v1`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/ping`)).ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error("the server did not start within 30 s");
    await delay(100);
  }
  return {
    url,
    cpuMs: () => processCpuMs(child.pid),
    stop: async () => {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

// ---- Measurements ----

interface RouteFigures {
  readonly route: string;
  readonly requestsPerSecond: number;
  readonly latencyMeanMs: number;
  /** The highest median of the route's rounds. */
  readonly latencyP50Ms: number;
  /** The highest 99th percentile of the route's rounds. */
  readonly latencyP99Ms: number;
  readonly requests: number;
  /** requests/s of ping in the rounds that alternated with this route's. */
  readonly pingRequestsPerSecond: number;
  /** requestsPerSecond / pingRequestsPerSecond. */
  readonly toPing: number;
  /** The server's CPU time per request of the route (user and system), in ms; undefined off Linux. */
  readonly serverCpuMsPerRequest?: number;
}

interface Route {
  readonly route: string;
  readonly path: string;
  /** Each request takes the next of these paths instead (distinct URLs). */
  readonly paths?: readonly string[];
  readonly authenticated: boolean;
}

function autocannonOptions(route: Route, baseUrl: string, apiKey: string) {
  const headers: Record<string, string> = route.authenticated ? { authorization: `Bearer ${apiKey}` } : {};
  const paths = route.paths;
  let next = 0;
  return {
    url: `${baseUrl}${route.path}`,
    headers,
    connections: CONNECTIONS,
    ...(paths === undefined
      ? {}
      : {
          requests: [
            {
              setupRequest: (request: { path: string }) => ({
                ...request,
                path: `${new URL(baseUrl).pathname}${paths[next++ % paths.length]!}`,
              }),
            },
          ],
        }),
  };
}

interface Rounds {
  readonly requests: number;
  /** The server's CPU time during the rounds, in ms, when it could be read. */
  readonly serverCpuMs?: number;
  readonly seconds: number;
  readonly latencyTotalMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

const NO_ROUNDS: Rounds = { requests: 0, seconds: 0, latencyTotalMs: 0, p50Ms: 0, p99Ms: 0 };

/** The server's CPU time per request of the rounds, in ms (3 decimals), when it could be read. */
function cpuPerRequest(rounds: Rounds): { serverCpuMsPerRequest?: number } {
  return rounds.serverCpuMs === undefined
    ? {}
    : { serverCpuMsPerRequest: Math.round((rounds.serverCpuMs / rounds.requests) * 1000) / 1000 };
}

function addRound(rounds: Rounds, route: Route, result: Result, serverCpuMs: number | undefined): Rounds {
  if (result.errors > 0 || result.non2xx > 0) {
    throw new Error(`${route.route}: ${result.errors} errors and ${result.non2xx} non-2xx responses`);
  }
  return {
    ...(serverCpuMs === undefined ? {} : { serverCpuMs: (rounds.serverCpuMs ?? 0) + serverCpuMs }),
    requests: rounds.requests + result.requests.total,
    seconds: rounds.seconds + result.duration,
    latencyTotalMs: rounds.latencyTotalMs + result.latency.average * result.requests.total,
    p50Ms: Math.max(rounds.p50Ms, result.latency.p50),
    p99Ms: Math.max(rounds.p99Ms, result.latency.p99),
  };
}

/**
 * The route in ROUNDS rounds of ROUND_SECONDS, each right after a round of ping of the same length:
 * the load of a shared machine drifts, and the ratio compares rounds run under the same load.
 */
async function measureAgainstPing(
  route: Route,
  ping: Route,
  server: ServerProcess,
  apiKey: string,
): Promise<{ figures: RouteFigures; ping: Rounds }> {
  const routeOptions = autocannonOptions(route, server.url, apiKey);
  const pingOptions = autocannonOptions(ping, server.url, apiKey);
  await autocannon({ ...routeOptions, duration: WARMUP_SECONDS });
  /** A round, with the server's CPU time during it. */
  const round = async (options: ReturnType<typeof autocannonOptions>) => {
    const before = server.cpuMs();
    const result = await autocannon({ ...options, duration: ROUND_SECONDS });
    const after = server.cpuMs();
    return { result, cpuMs: before === undefined || after === undefined ? undefined : after - before };
  };
  let pingRounds = NO_ROUNDS;
  let routeRounds = NO_ROUNDS;
  for (let index = 0; index < ROUNDS; index++) {
    const pinged = await round(pingOptions);
    pingRounds = addRound(pingRounds, ping, pinged.result, pinged.cpuMs);
    const routed = await round(routeOptions);
    routeRounds = addRound(routeRounds, route, routed.result, routed.cpuMs);
  }
  const requestsPerSecond = Math.round(routeRounds.requests / routeRounds.seconds);
  const pingRequestsPerSecond = Math.round(pingRounds.requests / pingRounds.seconds);
  const figures: RouteFigures = {
    route: route.route,
    requestsPerSecond,
    latencyMeanMs: Math.round((routeRounds.latencyTotalMs / routeRounds.requests) * 100) / 100,
    latencyP50Ms: routeRounds.p50Ms,
    latencyP99Ms: routeRounds.p99Ms,
    requests: routeRounds.requests,
    pingRequestsPerSecond,
    toPing: Math.round((requestsPerSecond / pingRequestsPerSecond) * 100) / 100,
    ...cpuPerRequest(routeRounds),
  };
  console.log(
    `  ${route.route.padEnd(58)} ${String(requestsPerSecond).padStart(7)} req/s (ping alongside ${pingRequestsPerSecond}: ${figures.toPing})  server CPU ${serverCpuCell(figures) || "?"}/request  mean ${figures.latencyMeanMs} ms  p50 ${figures.latencyP50Ms} ms  p99 ${figures.latencyP99Ms} ms`,
  );
  return { figures, ping: pingRounds };
}

interface SizeFigures {
  readonly database: Dialect;
  readonly attestations: number;
  readonly fillSeconds: number;
  /** The SQLite file and its WAL; undefined on PostgreSQL. */
  readonly databaseMegabytes: number | undefined;
  /** The 1-minute load average when the routes' measurement started. */
  readonly loadAverage: number;
  readonly routes: RouteFigures[];
}

function sqliteMegabytes(dataDir: string): number {
  let bytes = 0;
  for (const suffix of ["", "-wal"]) {
    try {
      bytes += statSync(join(dataDir, `abas.sqlite${suffix}`)).size;
    } catch {
      // No WAL file after a checkpoint.
    }
  }
  return Math.round(bytes / 1024 / 1024);
}

/** Cursors of pages spread over the whole listing, for requests that the page cache cannot answer. */
async function spreadCursors(handle: DatabaseHandle, count: number, rows: number): Promise<string[]> {
  const every = Math.max(1, Math.floor(rows / count));
  const positions = await handle.db
    .selectFrom("attestations")
    .select(["slot", "seq"])
    .where(sql<boolean>`seq % ${sql.lit(every)} = 0`)
    .execute();
  return positions.map((position) =>
    encodeCursor({ slot: Number(position.slot), seq: Number(position.seq) }),
  );
}

async function measureSize(
  database: BenchDatabase,
  attestations: number,
  fillSeconds: number,
  filterAgent: string,
): Promise<SizeFigures> {
  const { handle } = database;
  const { key } = await createApiKey(handle.db, { name: `bench ${attestations}` });
  // A cursor half-way down the listing: keyset pagination should make it cost what page 1 costs.
  const middle = await listAttestations(handle.db, { limit: 1, until: await middleTimestamp(handle) });
  const middleCursor = middle.pagination.nextCursor!;
  const cursors = await spreadCursors(handle, DISTINCT_CURSORS, attestations);
  const server = await startServerProcess(database.serverEnv);
  try {
    const loadAverage = Math.round(loadavg()[0]! * 10) / 10;
    console.log(
      `${handle.dialect}, ${attestations.toLocaleString("en-US")} attestations (filled in ${fillSeconds.toFixed(1)} s), load average ${loadAverage}:`,
    );
    const routes: Route[] = [
      { route: "GET /api/v1/ping", path: "/ping", authenticated: false },
      { route: "GET /api/v1/attestations?limit=20", path: "/attestations?limit=20", authenticated: true },
      {
        route: "GET /api/v1/attestations?limit=20&cursor=<middle>",
        path: `/attestations?limit=20&cursor=${middleCursor}`,
        authenticated: true,
      },
      {
        route: "GET /api/v1/attestations?limit=20&agent=<agent>",
        path: `/attestations?limit=20&agent=${filterAgent}`,
        authenticated: true,
      },
      {
        route: "GET /api/v1/attestations?limit=20&actionType=Decision",
        path: "/attestations?limit=20&actionType=Decision",
        authenticated: true,
      },
      {
        route: `GET /api/v1/attestations?limit=20&cursor=<${cursors.length.toLocaleString("en-US")} distinct>`,
        path: `/attestations?limit=20&cursor=${cursors[0]}`,
        paths: cursors.map((cursor) => `/attestations?limit=20&cursor=${cursor}`),
        authenticated: true,
      },
    ];
    const [ping, ...listRoutes] = routes;
    await autocannon({ ...autocannonOptions(ping!, server.url, key), duration: WARMUP_SECONDS });
    const measured: RouteFigures[] = [];
    let pingRounds = NO_ROUNDS;
    for (const route of listRoutes) {
      const result = await measureAgainstPing(route, ping!, server, key);
      measured.push(result.figures);
      pingRounds = {
        requests: pingRounds.requests + result.ping.requests,
        seconds: pingRounds.seconds + result.ping.seconds,
        latencyTotalMs: pingRounds.latencyTotalMs + result.ping.latencyTotalMs,
        p50Ms: Math.max(pingRounds.p50Ms, result.ping.p50Ms),
        p99Ms: Math.max(pingRounds.p99Ms, result.ping.p99Ms),
        ...(result.ping.serverCpuMs === undefined
          ? {}
          : { serverCpuMs: (pingRounds.serverCpuMs ?? 0) + result.ping.serverCpuMs }),
      };
    }
    const pingRequestsPerSecond = Math.round(pingRounds.requests / pingRounds.seconds);
    const figures: RouteFigures[] = [
      {
        route: ping!.route,
        requestsPerSecond: pingRequestsPerSecond,
        latencyMeanMs: Math.round((pingRounds.latencyTotalMs / pingRounds.requests) * 100) / 100,
        latencyP50Ms: pingRounds.p50Ms,
        latencyP99Ms: pingRounds.p99Ms,
        requests: pingRounds.requests,
        pingRequestsPerSecond,
        toPing: 1,
        ...cpuPerRequest(pingRounds),
      },
      ...measured,
    ];
    return {
      database: handle.dialect,
      attestations,
      fillSeconds: Math.round(fillSeconds * 10) / 10,
      databaseMegabytes: database.dataDir === undefined ? undefined : sqliteMegabytes(database.dataDir),
      loadAverage,
      routes: figures,
    };
  } finally {
    await server.stop();
  }
}

async function middleTimestamp(handle: DatabaseHandle): Promise<number> {
  const bounds = await handle.db
    .selectFrom("attestations")
    .select((eb) => [eb.fn.min("timestamp").as("first"), eb.fn.max("timestamp").as("last")])
    .executeTakeFirstOrThrow();
  return Math.floor((Number(bounds.first) + Number(bounds.last)) / 2);
}

// ---- Databases ----

interface BenchDatabase {
  readonly handle: DatabaseHandle;
  /** The server process's database variables. */
  readonly serverEnv: Record<string, string>;
  /** SQLite only: the data directory. */
  readonly dataDir: string | undefined;
  dispose(): Promise<void>;
}

async function openSqliteBenchDatabase(): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), "abas-bench-api-"));
  const handle = openDatabase({ url: join(dataDir, "abas.sqlite") });
  await migrateToLatest(handle);
  // A large page cache for the bulk fill: random keys (ids, hashes, signatures) touch pages all
  // over their indexes. The server process keeps SQLite's default.
  await sql`pragma cache_size = -524288`.execute(handle.db);
  return {
    handle,
    serverEnv: { DATA_DIR: dataDir },
    dataDir,
    dispose: async () => {
      await handle.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A schema of its own in the database of `url`, dropped afterwards. */
async function openPostgresBenchDatabase(url: string): Promise<BenchDatabase> {
  const admin = openDatabase({ url, maxConnections: 1 });
  await sql`drop schema if exists ${sql.id(BENCH_SCHEMA)} cascade`.execute(admin.db);
  await sql`create schema ${sql.id(BENCH_SCHEMA)}`.execute(admin.db);
  const schemaUrl = withSearchPath(url, BENCH_SCHEMA);
  const handle = openDatabase({ url: schemaUrl, maxConnections: 2 });
  await migrateToLatest(handle);
  return {
    handle,
    serverEnv: { DATABASE_URL: schemaUrl },
    dataDir: undefined,
    dispose: async () => {
      await handle.close();
      await sql`drop schema if exists ${sql.id(BENCH_SCHEMA)} cascade`.execute(admin.db);
      await admin.close();
    },
  };
}

// ---- Report ----

function formatNumber(value: number): string {
  return value.toLocaleString("en-US");
}

function databaseLabel(size: SizeFigures): string {
  return size.database === "sqlite" ? "SQLite" : "PostgreSQL";
}

function serverCpuCell(route: RouteFigures): string {
  return route.serverCpuMsPerRequest === undefined ? "" : `${route.serverCpuMsPerRequest} ms`;
}

/**
 * The routes' figures as a table and a line per database, for docs/api.md and
 * docs/performance.md; with `command`, each row and line names it.
 */
export function routeFiguresMarkdown(sizes: readonly SizeFigures[], command?: string): string[] {
  const commandHeader = command === undefined ? "" : " command |";
  const lines = [
    `| database | attestations | route | requests/s | of ping | server CPU per request | mean latency | p50 latency | p99 latency |${commandHeader}`,
    `| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |${command === undefined ? "" : " --- |"}`,
  ];
  for (const size of sizes) {
    for (const route of size.routes) {
      lines.push(
        `| ${databaseLabel(size)} | ${formatNumber(size.attestations)} | \`${route.route}\` | ${formatNumber(route.requestsPerSecond)} | ` +
          `${route.toPing} | ${serverCpuCell(route)} | ${route.latencyMeanMs} ms | ${route.latencyP50Ms} ms | ${route.latencyP99Ms} ms |` +
          (command === undefined ? "" : ` \`${command}\` |`),
      );
    }
  }
  lines.push("");
  for (const size of sizes) {
    const megabytes =
      size.databaseMegabytes === undefined ? "" : `${formatNumber(size.databaseMegabytes)} MB, `;
    lines.push(
      `- ${databaseLabel(size)}, ${formatNumber(size.attestations)} attestations (${megabytes}filled in ${size.fillSeconds} s), ` +
        `load average ${size.loadAverage} when the routes were measured` +
        (command === undefined ? "." : ` (\`${command}\`).`),
    );
  }
  return lines;
}

function markdownReport(report: BenchReport): string {
  const lines = [
    `Measured with \`${report.command}\` on ${report.date.slice(0, 10)}: ${report.machine}; the server ` +
      `(\`abas-server\`, LOG_LEVEL=warn, rate limit raised out of the way) and autocannon share the machine; ` +
      `${report.settings.connections} connections; each route in ${report.settings.rounds} rounds of ` +
      `${report.settings.roundSeconds} s, each right after a round of ping, after a ${report.settings.warmupSeconds} s warm-up ` +
      `(p50 and p99: the highest of the rounds); ${formatNumber(report.settings.agents)} agents with Zipf-distributed activity. ` +
      "Server CPU per request: the server process's user and system time during the route's rounds (from /proc) over their requests.",
    "",
    ...routeFiguresMarkdown(report.sizes),
  ];
  lines.push("", "The raw figures are in `bench/results/api.json`.");
  return lines.join("\n");
}

function writeDocs(report: BenchReport): void {
  const docs = readFileSync(DOCS_FILE, "utf8");
  const start = docs.indexOf(DOCS_START);
  const end = docs.indexOf(DOCS_END);
  if (start === -1 || end === -1) throw new Error(`${DOCS_FILE} has no ${DOCS_START} … ${DOCS_END} section`);
  writeFileSync(
    DOCS_FILE,
    `${docs.slice(0, start + DOCS_START.length)}\n${markdownReport(report)}\n${docs.slice(end)}`,
  );
}

interface BenchReport {
  readonly command: string;
  readonly date: string;
  readonly machine: string;
  readonly settings: {
    connections: number;
    rounds: number;
    roundSeconds: number;
    warmupSeconds: number;
    agents: number;
    distinctCursors: number;
  };
  /** SQLite's sizes, then PostgreSQL's when DATABASE_URL was set. */
  readonly sizes: SizeFigures[];
}

export type { BenchReport as ApiResults };

async function measureDatabase(database: BenchDatabase, sizes: readonly number[]): Promise<SizeFigures[]> {
  const startTime = 1_763_000_000;
  const agents = buildFleet(startTime);
  await database.handle.db.insertInto("agents").values(agents).execute();
  await createFleetSlots(database.handle, agents);
  const clock = { startSlot: 400_000_000, startTime };
  const figures: SizeFigures[] = [];
  let filled = 0;
  for (const size of sizes) {
    const fillSeconds = await fill(database.handle, filled, size, clock);
    filled = size;
    // An agent of middling activity: about 0.3 % of the rows.
    figures.push(await measureSize(database, size, fillSeconds, agents[FILTER_AGENT_RANK]!.agent));
  }
  return figures;
}

/**
 * Fills a fresh SQLite database, and a fresh PostgreSQL schema when `databaseUrl` is a postgres://
 * URL, up to each of `sizes` attestations in turn and measures the routes at each size against a
 * server child process; returns the figures.
 */
export async function measureApi(
  sizes: readonly number[] = SIZES,
  databaseUrl: string | undefined = process.env.DATABASE_URL,
): Promise<BenchReport> {
  const figures: SizeFigures[] = [];
  const openers = [openSqliteBenchDatabase];
  if (databaseUrl !== undefined && isPostgresUrl(databaseUrl))
    openers.push(() => openPostgresBenchDatabase(databaseUrl));
  else console.log("PostgreSQL pass skipped: set DATABASE_URL=postgres://… to measure it too");
  for (const open of openers) {
    const database = await open();
    try {
      figures.push(...(await measureDatabase(database, sizes)));
    } finally {
      await database.dispose();
    }
  }
  const cpu = cpus();
  return {
    command: COMMAND,
    date: new Date().toISOString(),
    machine: `${cpu.length} × ${cpu[0]?.model.trim() ?? "CPU"}, Node ${process.version}`,
    settings: {
      connections: CONNECTIONS,
      rounds: ROUNDS,
      roundSeconds: ROUND_SECONDS,
      warmupSeconds: WARMUP_SECONDS,
      agents: AGENT_COUNT,
      distinctCursors: DISTINCT_CURSORS,
    },
    sizes: figures,
  };
}

async function main(): Promise<void> {
  const report = await measureApi();
  mkdirSync(join(ROOT, "bench/results"), { recursive: true });
  writeFileSync(RESULTS_FILE, `${JSON.stringify(report, null, 2)}\n`);
  writeDocs(report);
  console.log(`Wrote ${RESULTS_FILE} and the figures in ${DOCS_FILE}`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await main();
