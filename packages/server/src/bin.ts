#!/usr/bin/env tsx
/**
 * `abas-server`: serves the REST API until SIGINT/SIGTERM, applying migrations first.
 * `abas-server keys ...` manages API keys (see keys-cli.ts). Settings: see config.ts and .env.example.
 */
import { ABAS_API__INVALID_SERVER_CONFIG, isAbasError } from "@abas/errors";
import { migrateToLatest, openDatabase } from "@abas/db";

import { buildApp } from "./app.js";
import { loadServerConfig } from "./config.js";
import { runKeysCli } from "./keys-cli.js";
import { closeOnSignals, startServer } from "./server.js";

const USAGE = `Usage:
  abas-server              serve the REST API (settings from the environment, see .env.example)
  abas-server keys ...     create, list and revoke API keys (abas-server keys --help)`;

async function serve(): Promise<void> {
  const config = loadServerConfig(process.env);
  const database = openDatabase({
    url: config.databaseUrl,
    onConnectionError: (error) =>
      process.stderr.write(`abas-server: database connection lost: ${error.message}\n`),
  });
  await migrateToLatest(database);
  const app = await buildApp({
    db: database.db,
    dialect: database.dialect,
    rpcUrl: config.rpcUrl,
    logLevel: config.logLevel,
    rateLimitPerMinute: config.rateLimitPerMinute,
    failedApiKeysPerMinute: config.failedApiKeysPerMinute,
    ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }),
    health: config.health,
  });
  const server = await startServer(app, {
    port: config.port,
    host: config.host,
    drainDelayMs: config.drainDelayMs,
  });
  app.log.info({ url: `${server.url}/api/v1`, database: database.description }, "ABAS API serving");
  closeOnSignals(server, {
    graceMs: config.drainDelayMs + 10_000,
    onClosed: () => database.close(),
    log: (message) => app.log.info(message),
  });
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (command === "keys") {
    process.exitCode = await runKeysCli(rest);
    return;
  }
  if (command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (command !== undefined) {
    process.stderr.write(`abas-server: unknown command "${command}"\n\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  try {
    await serve();
  } catch (error) {
    if (isAbasError(error, ABAS_API__INVALID_SERVER_CONFIG)) {
      process.stderr.write(`abas-server: ${error.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(
      `abas-server: could not start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  }
}

await main();
