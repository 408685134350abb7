/**
 * Listening, timeouts and graceful shutdown. Closing drains first: readiness turns 503 and
 * responses ask for `Connection: close` for `drainDelayMs` (long enough for a load balancer's
 * checks to take the replica out) while requests are still served; then the listener closes,
 * requests in flight finish (up to a deadline on signals), and `onClosed` runs.
 */
import { setTimeout as delay } from "node:timers/promises";

import type { FastifyInstance } from "fastify";

import type { Lifecycle } from "./lifecycle.js";

export interface ServerTimeouts {
  /** The whole request, headers and body, must arrive within this. */
  readonly requestTimeoutMs: number;
  /** The headers must arrive within this (slow-loris protection). */
  readonly headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number;
}

export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = {
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 72_000,
};

export interface RunningServer {
  /** `http://host:port`, with the port actually bound (useful with port 0). */
  readonly url: string;
  readonly port: number;
  /** Drains, stops accepting connections and waits for requests in flight. Safe to call twice. */
  close(): Promise<void>;
}

export interface StartServerOptions {
  readonly port: number;
  readonly host: string;
  readonly timeouts?: ServerTimeouts;
  /** How long closing keeps serving with readiness at 503 before the listener closes; default 0. */
  readonly drainDelayMs?: number;
}

export async function startServer(
  app: FastifyInstance & { readonly lifecycle: Lifecycle },
  options: StartServerOptions,
): Promise<RunningServer> {
  const timeouts = options.timeouts ?? DEFAULT_SERVER_TIMEOUTS;
  app.server.requestTimeout = timeouts.requestTimeoutMs;
  app.server.headersTimeout = timeouts.headersTimeoutMs;
  app.server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
  await app.listen({ port: options.port, host: options.host });
  const address = app.server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  const host = options.host === "0.0.0.0" || options.host === "::" ? "127.0.0.1" : options.host;
  let closing: Promise<void> | undefined;
  const drainThenClose = async (): Promise<void> => {
    app.lifecycle.draining = true;
    if ((options.drainDelayMs ?? 0) > 0) await delay(options.drainDelayMs);
    await app.close();
  };
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    close: () => (closing ??= drainThenClose()),
  };
}

/** Closes on the first SIGINT/SIGTERM; a second signal, or the deadline, exits at once. */
export function closeOnSignals(
  server: RunningServer,
  options: { graceMs?: number; onClosed?: () => Promise<void>; log?: (message: string) => void } = {},
): void {
  const graceMs = options.graceMs ?? 10_000;
  let shuttingDown = false;
  const shutDown = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      options.log?.(`${signal} again: exiting now`);
      process.exit(1);
    }
    shuttingDown = true;
    options.log?.(`${signal}: closing (waiting up to ${graceMs} ms for requests in flight)`);
    const deadline = setTimeout(() => {
      options.log?.("requests still in flight at the deadline: exiting");
      process.exit(1);
    }, graceMs);
    deadline.unref();
    void server
      .close()
      .then(() => options.onClosed?.())
      .then(
        () => {
          clearTimeout(deadline);
          process.exitCode ??= 0;
        },
        (error: unknown) => {
          options.log?.(`error while closing: ${String(error)}`);
          process.exit(1);
        },
      );
  };
  process.on("SIGINT", shutDown);
  process.on("SIGTERM", shutDown);
}
