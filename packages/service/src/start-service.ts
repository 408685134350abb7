/**
 * Starts the parts of the service in order (ledger, database, indexer, REST API) and stops them
 * in reverse: the API stops taking requests first, the ledger closes its log last.
 */
import { join } from "node:path";
import { migrateToLatest, openDatabase } from "@abas/db";
import { createIndexerLogger, deriveWebSocketUrl, startIndexer } from "@abas/indexer";
import { startLedger } from "@abas/ledger";
import { startServer } from "@abas/server";

import { buildServiceApp } from "./build-service-app.js";
import type { ServiceConfig } from "./config.js";

export interface RunningService {
  readonly rpcUrl: string;
  readonly wsUrl: string;
  readonly programId: string | undefined;
  readonly apiUrl: string;
  /** Where the web app (/app) and the share links are served: the public URL, or the API's. */
  readonly webUrl: string;
  readonly database: string;
  /** Stops everything; safe to call twice. */
  stop(): Promise<void>;
}

export async function startService(config: ServiceConfig): Promise<RunningService> {
  const ledger = config.localLedger
    ? await startLedger({
        dataDir: join(config.dataDir, "ledger"),
        host: config.host,
        rpcPort: config.ledgerRpcPort,
        wsPort: config.ledgerWsPort,
        logLevel: ledgerLevel(config.logLevel),
      })
    : undefined;
  const rpcUrl = ledger?.rpcUrl ?? config.rpcUrl;
  if (rpcUrl === undefined) throw new Error("no ledger: set RPC_URL or run the local ledger");
  // (the WebSocket the indexer would derive from RPC_URL anyway, named so the banner can show it)
  const wsUrl = ledger?.wsUrl ?? config.wsUrl ?? deriveWebSocketUrl(rpcUrl);
  const programId = ledger?.programId ?? config.programId;

  const database = openDatabase({ url: config.databaseUrl });
  const stopped: (() => Promise<void>)[] = [];
  try {
    await migrateToLatest(database);
    const indexer = await startIndexer({
      rpcUrl,
      wsUrl,
      ...(programId === undefined ? {} : { programId }),
      database,
      logger: createIndexerLogger(config.logLevel),
      migrate: false,
    });
    stopped.push(() => indexer.stop());
    const app = await buildServiceApp({
      db: database.db,
      dialect: database.dialect,
      rpcUrl,
      programId,
      config,
    });
    const api = await startServer(app, {
      port: config.apiPort,
      host: config.host,
      drainDelayMs: config.drainDelayMs,
    });
    stopped.push(() => api.close());
    let stopping: Promise<void> | undefined;
    return {
      rpcUrl,
      wsUrl,
      programId,
      apiUrl: `${api.url}/api/v1`,
      webUrl: (config.publicUrl ?? api.url).replace(/\/+$/, ""),
      database: database.description,
      stop: () =>
        (stopping ??= (async () => {
          for (const stop of stopped.reverse()) await stop();
          await database.close();
          await ledger?.stop();
        })()),
    };
  } catch (error) {
    for (const stop of stopped.reverse()) await stop().catch(() => undefined);
    await database.close();
    await ledger?.stop();
    throw error;
  }
}

/** The ledger logs at fewer levels than pino. */
function ledgerLevel(level: ServiceConfig["logLevel"]): "debug" | "info" | "warn" | "error" | "silent" {
  return level === "trace" ? "debug" : level === "fatal" ? "error" : level;
}
