/**
 * Runs a ledger in this process: opens (or creates) the ledger in the data directory, serves
 * JSON-RPC over HTTP and subscriptions over WebSocket, advances slots with the wall clock.
 */
import { createServer, type Server } from "node:http";

import type { Address } from "@solana/kit";

import { resolveLedgerConfig, type LedgerConfig, type LedgerOptions } from "./config.js";
import { openLedger, type StartupReport } from "./ledger/open-ledger.js";
import { createLogger, type Logger } from "./logger.js";
import { closeServer, createRpcHttpServer, listen } from "./rpc/http-server.js";
import type { RpcContext } from "./rpc/rpc-context.js";
import { handlePayload } from "./rpc/json-rpc.js";
import { createRpcMethods } from "./rpc/methods/index.js";
import { createSubscriptionServer } from "./subscriptions/websocket-server.js";

export interface RunningLedger {
  readonly rpcUrl: string;
  readonly wsUrl: string;
  readonly programId: Address;
  /** Funds airdrops; also the program's upgrade authority. Its keypair is in the data directory. */
  readonly faucet: Address;
  readonly dataDir: string;
  readonly startup: StartupReport;
  readonly config: LedgerConfig;
  /** Stops serving, writes a final snapshot, closes the event log. Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartLedgerOptions extends LedgerOptions {
  /** Defaults to stderr lines at `logLevel`. */
  readonly logger?: Logger;
  /**
   * Called once the ledger has stopped serving because another process took its data folder over
   * (this one was paused past its lock's renewals): what it would serve is no longer the folder's.
   */
  readonly onTakenOver?: (error: Error) => void;
}

function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return "127.0.0.1";
  return host.includes(":") ? `[${host}]` : host;
}

export async function startLedger(options: StartLedgerOptions): Promise<RunningLedger> {
  const config = resolveLedgerConfig(options);
  const logger = options.logger ?? createLogger(config.logLevel);
  // A takeover found before the ledger serves is kept, and handled once it does.
  let takenOverEarly: Error | undefined;
  let takenOver = (error: Error): void => {
    takenOverEarly = error;
  };
  const opened = await openLedger(config, logger, { onTakenOver: (error) => takenOver(error) });
  const { ledger } = opened;
  const methods = createRpcMethods();
  const context: RpcContext = { ledger, logger, endpoints: { rpc: null, pubsub: null } };
  const subscriptions = createSubscriptionServer(ledger, logger);
  const rpcServer = createRpcHttpServer(
    (body) => handlePayload(body, methods, context, logger),
    logger,
    () => ledger.unhealthy,
  );
  const wsServer: Server = createServer((_request, response) => {
    response.writeHead(426, { "content-type": "text/plain" });
    response.end("This port serves WebSocket subscriptions; send JSON-RPC requests to the RPC port.");
  });
  for (const server of [rpcServer, wsServer]) server.on("upgrade", subscriptions.handleUpgrade);

  let stopped: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      await subscriptions.close();
      await Promise.all([closeServer(rpcServer), closeServer(wsServer)]);
      opened.close();
      logger.info("ledger stopped", { dataDir: config.dataDir });
    })());
  const stopTakenOver = (error: Error): void => {
    logger.error("another process took the data folder over; stopping", { reason: error.message });
    void stop()
      .catch((stopError: unknown) => logger.error("stop failed", { reason: String(stopError) }))
      .then(() => options.onTakenOver?.(error));
  };

  try {
    const rpcPort = await listen(rpcServer, config.rpcPort, config.host);
    const wsPort = await listen(wsServer, config.wsPort, config.host);
    ledger.startTicking(config.slotMs);
    const host = urlHost(config.host);
    context.endpoints.rpc = `${host}:${rpcPort}`;
    context.endpoints.pubsub = `${host}:${wsPort}`;
    const running: RunningLedger = {
      rpcUrl: `http://${host}:${rpcPort}`,
      wsUrl: `ws://${host}:${wsPort}`,
      programId: ledger.programId,
      faucet: ledger.faucetAddress,
      dataDir: config.dataDir,
      startup: opened.startup,
      config,
      stop,
    };
    logger.info("ledger serving", {
      rpcUrl: running.rpcUrl,
      wsUrl: running.wsUrl,
      slot: ledger.currentSlot(),
    });
    takenOver = stopTakenOver;
    if (takenOverEarly !== undefined) stopTakenOver(takenOverEarly);
    return running;
  } catch (error) {
    await stop();
    throw error;
  }
}
