/** `abas reindex`: rebuilds the database from the ledger alone (API keys are kept), with a progress bar. */
import { openDatabase } from "@abas/db";
import {
  ConfigError,
  createIndexerLogger,
  parseIndexerConfig,
  reindex,
  ReindexAbortedError,
} from "@abas/indexer";

import { printResult, type CommandContext } from "../cli-io.js";
import { assertNoPositionals, GLOBAL_OPTIONS_HELP, parseOptions } from "../parse-options.js";
import { createProgress } from "../progress.js";
import { UsageError } from "../usage-error.js";
import type { Command } from "./command.js";

const USAGE = `Usage: abas reindex

Clears what the indexer wrote (agents, attestations, batches; API keys are kept) and rebuilds it
from the program's whole history on the ledger. It repairs an index that diverged from the ledger
(abas status names it). A running indexer on the same database (npm start) may keep running: the
reindex takes the leader lease from it (its writes are refused from then on) and hands the lease
back when it is done.
Database: DATABASE_URL (postgres://...) or DATA_DIR (SQLite <DATA_DIR>/abas.sqlite, default .data).

${GLOBAL_OPTIONS_HELP}`;

async function run(args: readonly string[], { io, env }: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, {});
  assertNoPositionals(positionals);
  let config;
  try {
    config = parseIndexerConfig({
      ...env,
      LOG_LEVEL: env.LOG_LEVEL ?? "warn",
      ...(values["rpc-url"] === undefined ? {} : { RPC_URL: values["rpc-url"] }),
      ...(values["program-id"] === undefined ? {} : { PROGRAM_ID: values["program-id"] }),
    });
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
  const database = openDatabase({ url: config.databaseUrl, maxConnections: 1 });
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.once("SIGINT", onSignal);
  let progress: ReturnType<typeof createProgress> | undefined;
  try {
    const summary = await reindex({
      rpcUrl: config.rpcUrl,
      programId: config.programId,
      database,
      commitment: config.commitment,
      logger: createIndexerLogger(config.logLevel),
      signal: abort.signal,
      onProgress: ({ processed, total, rate }) => {
        progress ??= createProgress(io, "reindex", total);
        progress.update(processed, `${rate.toFixed(0)} tx/s`);
      },
    });
    progress?.stop();
    printResult(
      io,
      values.json,
      { ...summary, database: database.description },
      `Reindexed ${summary.transactions} transactions (${summary.applied} applied) in ` +
        `${(summary.elapsedMs / 1000).toFixed(1)} s, up to slot ${summary.indexedSlot}; database ${database.description}`,
    );
    return 0;
  } catch (error) {
    progress?.stop();
    if (error instanceof ReindexAbortedError) return 130;
    throw error;
  } finally {
    process.off("SIGINT", onSignal);
    await database.close();
  }
}

export const reindexCommand: Command = {
  usage: USAGE,
  run,
};
