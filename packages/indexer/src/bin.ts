#!/usr/bin/env tsx
/**
 * `abas-indexer [run|reindex]`: `run` (the default) follows the ledger until SIGINT/SIGTERM;
 * `reindex` rebuilds the database from the ledger, prints its progress, and exits.
 * Configuration comes from the environment (see config.ts); logs are JSON lines on stderr.
 */
import { openDatabase, type DatabaseHandle } from "@abas/db";

import { ConfigError, parseIndexerConfig, type IndexerConfig } from "./config.js";
import { describeError } from "./describe-error.js";
import { startIndexer } from "./indexer.js";
import { createIndexerLogger, type Logger } from "./logger.js";
import { reindex, ReindexAbortedError, type ReindexProgress } from "./reindex.js";

const USAGE = `Usage: abas-indexer [run|reindex]

  run       follow the ledger and keep the database up to date (default)
  reindex   clear the indexed data (API keys are kept) and rebuild it from the ledger, then exit

Environment:
  RPC_URL             ledger JSON-RPC (default http://127.0.0.1:8899)
  WS_URL              ledger WebSocket (default: RPC_URL's port + 1)
  PROGRAM_ID          ABAS program (default 5RM2JWdhiGGfkBnB16BpZiJoXa79E1rW31pB4YWBZbkN, the local ledger's)
  DATABASE_URL        postgres://… or a SQLite file; default <DATA_DIR>/abas.sqlite
  DATA_DIR            default .data
  POLL_INTERVAL_MS    default 1000
  INDEXER_COMMITMENT  finalized (default) or confirmed
  LOG_LEVEL           fatal|error|warn|info|debug|trace|silent (default info)`;

function onStopSignal(handler: (signal: NodeJS.Signals) => void): void {
  process.once("SIGINT", handler);
  process.once("SIGTERM", handler);
}

async function runIndexer(config: IndexerConfig, database: DatabaseHandle, logger: Logger): Promise<void> {
  const indexer = await startIndexer({
    rpcUrl: config.rpcUrl,
    wsUrl: config.wsUrl,
    programId: config.programId,
    database,
    pollIntervalMs: config.pollIntervalMs,
    leaseMs: config.leaseMs,
    commitment: config.commitment,
    logger,
  });
  await new Promise<void>((resolve) =>
    onStopSignal((signal) => {
      logger.info({ signal }, "stopping");
      resolve();
    }),
  );
  await indexer.stop();
}

function formatProgress({ processed, total, rate }: ReindexProgress): string {
  const percent = total === 0 ? 100 : Math.floor((processed * 100) / total);
  return `reindex: ${processed}/${total} transactions (${percent}%), ${rate.toFixed(0)} tx/s`;
}

async function runReindex(config: IndexerConfig, database: DatabaseHandle, logger: Logger): Promise<void> {
  const abort = new AbortController();
  onStopSignal(() => abort.abort());
  let lastPrinted = 0;
  const summary = await reindex({
    rpcUrl: config.rpcUrl,
    programId: config.programId,
    database,
    commitment: config.commitment,
    logger,
    signal: abort.signal,
    onProgress: (progress) => {
      const now = Date.now();
      if (now - lastPrinted < 1000 && progress.processed !== progress.total) return;
      lastPrinted = now;
      process.stderr.write(`${formatProgress(progress)}\n`);
    },
  });
  process.stdout.write(
    `reindexed ${summary.transactions} transactions in ${(summary.elapsedMs / 1000).toFixed(1)} s ` +
      `(${summary.rate.toFixed(0)} tx/s), up to slot ${summary.indexedSlot}\n`,
  );
}

async function main(argv: readonly string[]): Promise<number> {
  const command = argv[0] ?? "run";
  if (command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if ((command !== "run" && command !== "reindex") || argv.length > 1) {
    process.stderr.write(`abas-indexer: unknown arguments "${argv.join(" ")}"\n\n${USAGE}\n`);
    return 2;
  }
  let config: IndexerConfig;
  try {
    config = parseIndexerConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`abas-indexer: ${error.message}\n`);
    return 2;
  }
  const logger = createIndexerLogger(config.logLevel);
  const database = openDatabase({
    url: config.databaseUrl,
    onConnectionError: (error) => logger.warn({ error: describeError(error) }, "database connection lost"),
  });
  try {
    if (command === "reindex") await runReindex(config, database, logger);
    else await runIndexer(config, database, logger);
    return 0;
  } catch (error) {
    if (error instanceof ReindexAbortedError) return 130;
    logger.fatal({ error: describeError(error) }, "abas-indexer failed");
    return 1;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`abas-indexer: ${describeError(error)}\n`);
    process.exit(1);
  },
);
