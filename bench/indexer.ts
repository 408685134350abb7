/**
 * The indexer's speed against a real local ledger process:
 *
 * - fetch ceiling: every program transaction fetched with JSON-RPC batches of 250 `getTransaction`
 *   calls, one batch after the other, nothing decoded or written: what the ledger alone serves;
 * - ingest rate: a ledger already holding N single attestations and M batches of 100 is indexed
 *   from scratch by `startIndexer` (in this process); attestations (rows) and program transactions
 *   applied per second, from start to caught up;
 * - latency: with `abas-indexer` running as its own process, 200 attestations are sent one after
 *   the other through the SDK; for each, the time from the confirmed receipt (attest() returning)
 *   to its row being readable in the database, and from the attest() call to the row.
 *
 * SQLite always; PostgreSQL too when DATABASE_URL is set (in a schema of its own, dropped after).
 * The machine's 1-minute load average is recorded at the start of each ingest: on a shared machine
 * the figures move with it. Writes bench/results/indexer.json.
 *
 *   npx tsx bench/indexer.ts          (BENCH_SINGLES, BENCH_BATCHES, BENCH_LATENCY_SAMPLES to change the sizes)
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { IndexerStateKey, migrateToLatest, openDatabase, type DatabaseHandle } from "@abas/db";
import { CHUNK_SIZE, createIndexerLogger, sendJsonRpcBatch, startIndexer } from "@abas/indexer";
import { spawnLedgerProcess, type LedgerProcess } from "@abas/ledger";
import { AttestationClient, generateSecretKey } from "@abas/sdk";
import {
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  lamports,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
} from "@solana/kit";

const SINGLES = Number(process.env.BENCH_SINGLES ?? 2000);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 20);
const BATCH_SIZE = 100;
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 200);
const AGENTS = 8;
const COMMAND = "npx tsx bench/indexer.ts";
const RESULTS_PATH = fileURLToPath(new URL("./results/indexer.json", import.meta.url));
const INDEXER_BIN = fileURLToPath(new URL("../packages/indexer/src/bin.ts", import.meta.url));

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message: string): void => void process.stderr.write(`${message}\n`);

const randomHash = (): string => randomBytes(32).toString("hex");

async function fundedSecretKey(rpc: Rpc<SolanaRpcApi>): Promise<Uint8Array> {
  const secretKey = generateSecretKey();
  const { address } = await createKeyPairSignerFromBytes(Uint8Array.from(secretKey));
  await rpc.requestAirdrop(address, lamports(10_000_000_000_000n)).send();
  while ((await rpc.getBalance(address).send()).value === 0n) await sleep(20);
  return secretKey;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (value: number, digits = 1): number => Number(value.toFixed(digits));

type BenchDatabase = { kind: "sqlite" | "postgres"; url: string; dispose: () => Promise<void> };

async function createBenchDatabase(kind: "sqlite" | "postgres"): Promise<BenchDatabase> {
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "abas-bench-db-"));
    return {
      kind,
      url: join(dir, "abas.sqlite"),
      dispose: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const base = process.env.DATABASE_URL!;
  const schema = `bench_${randomBytes(4).toString("hex")}`;
  const admin = openDatabase({ url: base, maxConnections: 1 });
  await admin.db.schema.createSchema(schema).execute();
  const url = `${base}${base.includes("?") ? "&" : "?"}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    kind,
    url,
    dispose: async () => {
      await admin.db.schema.dropSchema(schema).cascade().execute();
      await admin.close();
    },
  };
}

async function cursorOf(database: DatabaseHandle): Promise<string | undefined> {
  const row = await database.db
    .selectFrom("indexer_state")
    .select("value")
    .where("key", "=", IndexerStateKey.CursorSignature)
    .executeTakeFirst();
  return row?.value;
}

/** Fills the ledger: singles and batches from several agents at once, as production traffic would. */
async function populate(
  ledger: LedgerProcess,
): Promise<{ clients: AttestationClient[]; operator: Uint8Array }> {
  const rpc = createSolanaRpc(ledger.rpcUrl);
  const operator = await fundedSecretKey(rpc);
  const clients = Array.from(
    { length: AGENTS },
    () =>
      new AttestationClient({
        rpcUrl: ledger.rpcUrl,
        agentKeypair: generateSecretKey(),
        programId: ledger.programId,
      }),
  );
  for (const client of clients) await client.registerAgent({ operatorKeypair: operator });
  const started = performance.now();
  let singlesLeft = SINGLES;
  let batchesLeft = BATCHES;
  await Promise.all(
    clients.map(async (client) => {
      while (batchesLeft > 0) {
        batchesLeft -= 1;
        await client.batchAttest({
          operatorKeypair: operator,
          attestations: Array.from({ length: BATCH_SIZE }, (_, i) => ({
            actionHash: randomHash(),
            actionType: i % 2 === 0 ? "ToolCall" : "Decision",
            privacyMode: i % 10 === 0,
          })),
        });
      }
      while (singlesLeft > 0) {
        singlesLeft -= 1;
        await client.attest({
          operatorKeypair: operator,
          actionHash: randomHash(),
          actionType: "ModelInvocation",
          privacyMode: singlesLeft % 4 === 0,
        });
      }
    }),
  );
  log(
    `ledger filled: ${SINGLES} singles and ${BATCHES} batches of ${BATCH_SIZE} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return { clients, operator };
}

/** The ledger's own pace: every program transaction fetched in batches as the indexer fetches them. */
async function measureFetchCeiling(ledger: LedgerProcess) {
  const rpc = createSolanaRpc(ledger.rpcUrl);
  const signatures: string[] = [];
  for (;;) {
    const before = signatures.at(-1);
    const page = await rpc
      .getSignaturesForAddress(ledger.programId, {
        limit: 1000,
        ...(before === undefined ? {} : { before: before as Signature }),
      })
      .send();
    signatures.push(...page.map((entry) => entry.signature));
    if (page.length < 1000) break;
  }
  const options = { encoding: "json", maxSupportedTransactionVersion: 0, commitment: "confirmed" };
  const loadAverage = round(loadavg()[0]!, 2);
  const started = performance.now();
  for (let start = 0; start < signatures.length; start += CHUNK_SIZE) {
    const chunk = signatures.slice(start, start + CHUNK_SIZE);
    await sendJsonRpcBatch(
      ledger.rpcUrl,
      chunk.map((signature) => ({ method: "getTransaction", params: [signature, options] })),
    );
  }
  const seconds = (performance.now() - started) / 1000;
  const result = {
    transactions: signatures.length,
    batchSize: CHUNK_SIZE,
    seconds: round(seconds, 2),
    transactionsPerSecond: Math.round(signatures.length / seconds),
    loadAverage,
  };
  log(`fetch ceiling: ${JSON.stringify(result)}`);
  return result;
}

async function measureIngest(ledger: LedgerProcess, target: BenchDatabase) {
  const database = openDatabase({ url: target.url });
  await migrateToLatest(database);
  const rpc = createSolanaRpc(ledger.rpcUrl);
  const newest = (await rpc.getSignaturesForAddress(ledger.programId, { limit: 1 }).send())[0]!.signature;
  const loadAverage = round(loadavg()[0]!, 2);
  const started = performance.now();
  const indexer = await startIndexer({
    rpcUrl: ledger.rpcUrl,
    wsUrl: ledger.wsUrl,
    programId: ledger.programId,
    database,
    subscribe: false,
    logger: createIndexerLogger("warn"),
    migrate: false,
  });
  while ((await cursorOf(database)) !== newest) await sleep(10);
  const seconds = (performance.now() - started) / 1000;
  await indexer.stop();
  const attestations = Number(
    (
      await database.db
        .selectFrom("attestations")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );
  const transactions = Number(
    (
      await database.db
        .selectFrom("processed_transactions")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );
  await database.close();
  const result = {
    database: target.kind,
    attestations,
    transactions,
    seconds: round(seconds, 2),
    attestationsPerSecond: Math.round(attestations / seconds),
    transactionsPerSecond: Math.round(transactions / seconds),
    loadAverage,
  };
  log(`ingest (${target.kind}): ${JSON.stringify(result)}`);
  return result;
}

function spawnIndexerProcess(ledger: LedgerProcess, databaseUrl: string) {
  const child = spawn(process.execPath, ["--import", import.meta.resolve("tsx"), INDEXER_BIN, "run"], {
    stdio: ["ignore", "ignore", "pipe"],
    env: {
      ...process.env,
      RPC_URL: ledger.rpcUrl,
      WS_URL: ledger.wsUrl,
      PROGRAM_ID: ledger.programId,
      DATABASE_URL: databaseUrl,
      LOG_LEVEL: "info",
    },
  });
  let stderr = "";
  const leading = new Promise<void>((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      if (stderr.includes('"msg":"leading: indexing"')) resolve();
    });
    // Once it leads, this changes nothing; before, it ends the wait instead of hanging.
    child.once("exit", () => reject(new Error(`abas-indexer exited before leading:\n${stderr}`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    leading,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

async function measureLatency(
  ledger: LedgerProcess,
  target: BenchDatabase,
  client: AttestationClient,
  operator: Uint8Array,
) {
  const indexer = spawnIndexerProcess(ledger, target.url);
  await indexer.leading;
  const database = openDatabase({ url: target.url, maxConnections: 2 });
  const rpc = createSolanaRpc(ledger.rpcUrl);
  const newest = (await rpc.getSignaturesForAddress(ledger.programId, { limit: 1 }).send())[0]!.signature;
  while ((await cursorOf(database)) !== newest) await sleep(20);
  await sleep(500);

  const fromReceipt: number[] = [];
  const fromCall: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const called = performance.now();
    const receipt = await client.attest({
      operatorKeypair: operator,
      actionHash: randomHash(),
      actionType: "ToolCall",
    });
    const confirmed = performance.now();
    for (;;) {
      const row = await database.db
        .selectFrom("attestations")
        .select("id")
        .where("id", "=", receipt.attestationAddress)
        .executeTakeFirst();
      if (row !== undefined) break;
      await sleep(1);
    }
    const indexed = performance.now();
    fromReceipt.push(indexed - confirmed);
    fromCall.push(indexed - called);
    await sleep(50);
  }
  await database.close();
  await indexer.stop();
  const summary = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return {
      p50Ms: round(percentile(sorted, 50)),
      p99Ms: round(percentile(sorted, 99)),
      maxMs: round(sorted.at(-1)!),
    };
  };
  const result = {
    database: target.kind,
    samples: LATENCY_SAMPLES,
    receiptToRow: summary(fromReceipt),
    attestCallToRow: summary(fromCall),
  };
  log(`latency (${target.kind}): ${JSON.stringify(result)}`);
  return result;
}

/**
 * Fills a ledger process, then measures ingest and confirmed-to-row latency on SQLite (and
 * PostgreSQL when DATABASE_URL is set); returns the figures.
 */
export async function measureIndexer() {
  const kinds: ("sqlite" | "postgres")[] = ["sqlite"];
  if (process.env.DATABASE_URL?.startsWith("postgres")) kinds.push("postgres");
  const dataDir = mkdtempSync(join(tmpdir(), "abas-bench-ledger-"));
  const ledger = await spawnLedgerProcess({ dataDir });
  const keepAlive = setInterval(() => undefined, 1000);
  try {
    const { clients, operator } = await populate(ledger);
    const targets = await Promise.all(kinds.map(createBenchDatabase));
    const ingest = [];
    const latency = [];
    let fetchCeiling: Awaited<ReturnType<typeof measureFetchCeiling>> | undefined;
    try {
      // Every ingest first, so each database starts from the same ledger; then the latencies.
      fetchCeiling = await measureFetchCeiling(ledger);
      for (const target of targets) ingest.push(await measureIngest(ledger, target));
      for (const target of targets) latency.push(await measureLatency(ledger, target, clients[0]!, operator));
    } finally {
      for (const target of targets) await target.dispose();
    }
    const results = {
      command: COMMAND,
      date: new Date().toISOString(),
      machine: { cpus: availableParallelism(), cpu: cpus()[0]?.model ?? "unknown", node: process.version },
      ledger: {
        process: "@abas/ledger (litesvm behind JSON-RPC, separate process, default 400 ms slots)",
        singles: SINGLES,
        batches: BATCHES,
        batchSize: BATCH_SIZE,
      },
      fetchCeiling: fetchCeiling!,
      ingest,
      latency,
    };
    return results;
  } finally {
    await ledger.stop();
    clearInterval(keepAlive);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export type IndexerResults = Awaited<ReturnType<typeof measureIndexer>>;

async function main(): Promise<void> {
  const results = await measureIndexer();
  mkdirSync(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
  writeFileSync(RESULTS_PATH, `${JSON.stringify(results, null, 2)}\n`);
  log(`written ${RESULTS_PATH}`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await main();
