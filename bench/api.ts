/**
 * REST API throughput and latency on SQLite with 100,000 and then 1,000,000 attestations: the
 * first page of GET /api/v1/attestations?limit=20 (with an API key), a page deep in the listing
 * (by cursor), and the bare GET /api/v1/ping in the same run, whose ratio shows what the database
 * read, the key check and serialisation cost. The server runs as a child process
 * (`abas-server`), autocannon in this process. Writes bench/results/api.json and the figures in
 * docs/api.md.
 *
 *   npx tsx bench/api.ts
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";

import autocannon, { type Result } from "autocannon";
import { sql } from "kysely";

import {
  createApiKey,
  listAttestations,
  migrateToLatest,
  openDatabase,
  type DatabaseHandle,
  type NewAgentRow,
  type NewAttestationRow,
} from "@abas/db";
import { seedAttestations } from "@abas/db/testing";

const COMMAND = "npx tsx bench/api.ts";
const SIZES = [100_000, 1_000_000] as const;
const AGENT_COUNT = 500;
const OPERATOR_COUNT = 50;
const INSERT_TRANSACTION_ROWS = 50_000;
const CONNECTIONS = 10;
const DURATION_SECONDS = 10;
const WARMUP_SECONDS = 2;
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

/** Base58-looking text of the length real addresses (44) and signatures (88) have. */
function randomBase58(length: number): string {
  const bytes = randomBytes(length);
  let text = "";
  for (const byte of bytes) text += BASE58[byte % 58];
  return text;
}

/** Action types in the proportions an agent fleet of tool users would show. */
const ACTION_TYPE_WEIGHTS: [NewAttestationRow["action_type"], number][] = [
  ["ToolCall", 0.45],
  ["ModelInvocation", 0.25],
  ["Decision", 0.2],
  ["Transaction", 0.1],
];

function pickActionType(): NewAttestationRow["action_type"] {
  let roll = Math.random();
  for (const [type, weight] of ACTION_TYPE_WEIGHTS) {
    roll -= weight;
    if (roll < 0) return type;
  }
  return "ToolCall";
}

interface Fleet {
  readonly agents: NewAgentRow[];
  /** Cumulative Zipf weights: a few agents do most of the work, as in a real fleet. */
  readonly cumulativeWeights: number[];
}

function buildFleet(startTime: number): Fleet {
  const operators = Array.from({ length: OPERATOR_COUNT }, () => randomBase58(44));
  const agents = Array.from({ length: AGENT_COUNT }, (_, i): NewAgentRow => ({
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
  const weights = agents.map((_, i) => 1 / Math.pow(i + 1, 1.1));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let running = 0;
  return { agents, cumulativeWeights: weights.map((weight) => (running += weight / total)) };
}

function pickAgent(fleet: Fleet): NewAgentRow {
  const roll = Math.random();
  let low = 0;
  let high = fleet.cumulativeWeights.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (fleet.cumulativeWeights[middle]! < roll) low = middle + 1;
    else high = middle;
  }
  return fleet.agents[low]!;
}

interface LedgerClock {
  slot: number;
  readonly startSlot: number;
  readonly startTime: number;
}

/** Rows for `count` attestations: singles, and now and then a batch of 10 to 100 items in one slot. */
function* generateAttestations(
  fleet: Fleet,
  clock: LedgerClock,
  count: number,
): Generator<NewAttestationRow> {
  let produced = 0;
  const indexedAt = Date.now();
  while (produced < count) {
    clock.slot += 1 + Math.floor(Math.random() * 40);
    const timestamp = clock.startTime + Math.floor(((clock.slot - clock.startSlot) * 400) / 1000);
    const agent = pickAgent(fleet);
    const privacy = Math.random() < 0.15 ? 1 : 0;
    const isBatch = Math.random() < 0.005;
    const items = isBatch ? Math.min(count - produced, 10 + Math.floor(Math.random() * 91)) : 1;
    const batchAddress = isBatch ? randomBase58(44) : null;
    const txSignature = randomBase58(88);
    const agentSignature = randomBase58(88);
    const merkleRoot = isBatch ? randomBytes(32).toString("hex") : null;
    for (let index = 0; index < items; index++) {
      yield {
        id: batchAddress === null ? randomBase58(44) : `${batchAddress}:${index}`,
        kind: isBatch ? "batch" : "single",
        agent: agent.agent,
        operator: agent.operator,
        action_type: pickActionType(),
        privacy,
        stored_hash: randomBytes(32).toString("hex"),
        agent_signature: agentSignature,
        tx_signature: txSignature,
        slot: clock.slot,
        timestamp,
        batch_address: batchAddress,
        batch_index: isBatch ? index : null,
        merkle_root: merkleRoot,
        indexed_at: indexedAt,
      };
    }
    produced += items;
  }
}

async function fill(
  handle: DatabaseHandle,
  fleet: Fleet,
  clock: LedgerClock,
  count: number,
): Promise<number> {
  const started = performance.now();
  let chunk: NewAttestationRow[] = [];
  for (const row of generateAttestations(fleet, clock, count)) {
    chunk.push(row);
    if (chunk.length === INSERT_TRANSACTION_ROWS) {
      await seedAttestations(handle.db, chunk);
      chunk = [];
    }
  }
  if (chunk.length > 0) await seedAttestations(handle.db, chunk);
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
  stop(): Promise<void>;
}

async function startServerProcess(dataDir: string): Promise<ServerProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), SERVER_BIN], {
    env: {
      PATH: process.env.PATH,
      // The repository's source condition (.npmrc), so the server runs from the TypeScript sources.
      NODE_OPTIONS: process.env.NODE_OPTIONS,
      DATA_DIR: dataDir,
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
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly requests: number;
  readonly errors: number;
  readonly non2xx: number;
}

async function measure(route: string, url: string, headers: Record<string, string>): Promise<RouteFigures> {
  await autocannon({ url, headers, connections: CONNECTIONS, duration: WARMUP_SECONDS });
  const result: Result = await autocannon({
    url,
    headers,
    connections: CONNECTIONS,
    duration: DURATION_SECONDS,
  });
  const figures = {
    route,
    requestsPerSecond: Math.round(result.requests.average),
    latencyMeanMs: Math.round(result.latency.average * 100) / 100,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors,
    non2xx: result.non2xx,
  };
  if (figures.errors > 0 || figures.non2xx > 0) {
    throw new Error(`${route}: ${figures.errors} errors and ${figures.non2xx} non-2xx responses`);
  }
  console.log(
    `  ${route.padEnd(50)} ${String(figures.requestsPerSecond).padStart(7)} req/s  mean ${figures.latencyMeanMs} ms  p50 ${figures.latencyP50Ms} ms  p99 ${figures.latencyP99Ms} ms`,
  );
  return figures;
}

interface SizeFigures {
  readonly attestations: number;
  readonly fillSeconds: number;
  readonly databaseMegabytes: number;
  readonly routes: RouteFigures[];
  /** requests/s of the first attestations page divided by requests/s of ping. */
  readonly listToPingRatio: number;
}

function databaseMegabytes(dataDir: string): number {
  let bytes = 0;
  for (const suffix of ["", "-wal"]) {
    try {
      bytes += readFileSync(join(dataDir, `abas.sqlite${suffix}`)).byteLength;
    } catch {
      // No WAL file after a checkpoint.
    }
  }
  return Math.round(bytes / 1024 / 1024);
}

async function measureSize(
  handle: DatabaseHandle,
  dataDir: string,
  attestations: number,
  fillSeconds: number,
): Promise<SizeFigures> {
  const { key } = await createApiKey(handle.db, { name: `bench ${attestations}` });
  // A cursor half-way down the listing: keyset pagination should make it cost what page 1 costs.
  const middle = await listAttestations(handle.db, { limit: 1, until: await middleTimestamp(handle) });
  const middleCursor = middle.pagination.nextCursor!;
  const server = await startServerProcess(dataDir);
  try {
    console.log(
      `${attestations.toLocaleString("en-US")} attestations (filled in ${fillSeconds.toFixed(1)} s):`,
    );
    const headers = { authorization: `Bearer ${key}` };
    const ping = await measure("GET /api/v1/ping", `${server.url}/ping`, {});
    const firstPage = await measure(
      "GET /api/v1/attestations?limit=20",
      `${server.url}/attestations?limit=20`,
      headers,
    );
    const deepPage = await measure(
      "GET /api/v1/attestations?limit=20&cursor=<middle>",
      `${server.url}/attestations?limit=20&cursor=${middleCursor}`,
      headers,
    );
    const ratio = Math.round((firstPage.requestsPerSecond / ping.requestsPerSecond) * 100) / 100;
    console.log(`  ratio attestations/ping: ${ratio}`);
    return {
      attestations,
      fillSeconds: Math.round(fillSeconds * 10) / 10,
      databaseMegabytes: databaseMegabytes(dataDir),
      routes: [ping, firstPage, deepPage],
      listToPingRatio: ratio,
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

// ---- Report ----

function formatNumber(value: number): string {
  return value.toLocaleString("en-US");
}

function markdownReport(report: BenchReport): string {
  const lines = [
    `Measured with \`${report.command}\` on ${report.date.slice(0, 10)}: ${report.machine}; SQLite; the server ` +
      `(\`abas-server\`, LOG_LEVEL=warn, rate limit raised out of the way) and autocannon share the machine; ` +
      `${report.settings.connections} connections, ${report.settings.durationSeconds} s per route after a ` +
      `${report.settings.warmupSeconds} s warm-up; ${formatNumber(report.settings.agents)} agents with Zipf-distributed activity.`,
    "",
    "| attestations | route | requests/s | mean latency | p50 latency | p99 latency |",
    "| ---: | --- | ---: | ---: | ---: | ---: |",
  ];
  for (const size of report.sizes) {
    for (const route of size.routes) {
      lines.push(
        `| ${formatNumber(size.attestations)} | \`${route.route}\` | ${formatNumber(route.requestsPerSecond)} | ` +
          `${route.latencyMeanMs} ms | ${route.latencyP50Ms} ms | ${route.latencyP99Ms} ms |`,
      );
    }
  }
  lines.push("");
  for (const size of report.sizes) {
    lines.push(
      `- ${formatNumber(size.attestations)} attestations (${formatNumber(size.databaseMegabytes)} MB, filled in ${size.fillSeconds} s): ` +
        `the first page of attestations serves at ${size.listToPingRatio} of the bare ping route's rate.`,
    );
  }
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
  readonly settings: { connections: number; durationSeconds: number; warmupSeconds: number; agents: number };
  readonly sizes: SizeFigures[];
}

export type { BenchReport as ApiResults };

/**
 * Fills a fresh SQLite database up to each of `sizes` attestations in turn and measures the
 * routes at each size against a server child process; returns the figures.
 */
export async function measureApi(sizes: readonly number[] = SIZES): Promise<BenchReport> {
  const dataDir = mkdtempSync(join(tmpdir(), "abas-bench-api-"));
  const handle = openDatabase({ url: join(dataDir, "abas.sqlite") });
  try {
    await migrateToLatest(handle);
    // A large page cache for the bulk fill: random keys (ids, hashes, signatures) touch pages all
    // over their indexes. The server process keeps SQLite's default.
    await sql`pragma cache_size = -524288`.execute(handle.db);
    const startTime = 1_763_000_000;
    const fleet = buildFleet(startTime);
    await handle.db.insertInto("agents").values(fleet.agents).execute();
    const clock: LedgerClock = { slot: 400_000_000, startSlot: 400_000_000, startTime };
    const figures: SizeFigures[] = [];
    let filled = 0;
    for (const size of sizes) {
      const fillSeconds = await fill(handle, fleet, clock, size - filled);
      filled = size;
      figures.push(await measureSize(handle, dataDir, size, fillSeconds));
    }
    const cpu = cpus();
    const report: BenchReport = {
      command: COMMAND,
      date: new Date().toISOString(),
      machine: `${cpu.length} × ${cpu[0]?.model.trim() ?? "CPU"}, Node ${process.version}`,
      settings: {
        connections: CONNECTIONS,
        durationSeconds: DURATION_SECONDS,
        warmupSeconds: WARMUP_SECONDS,
        agents: AGENT_COUNT,
      },
      sizes: figures,
    };
    return report;
  } finally {
    await handle.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
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
