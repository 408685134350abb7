/**
 * The WebSocket side: one SubscriptionSession per connection. Upgrades are accepted both on the
 * dedicated WebSocket port and on the RPC port.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

import { WebSocketServer, type RawData, type WebSocket } from "ws";

import type { Ledger } from "../ledger/ledger.js";
import type { Logger } from "../logger.js";
import { SubscriptionSession } from "./subscription-session.js";

export interface SubscriptionServer {
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Disconnects every client. */
  close(): Promise<void>;
}

const textOf = (data: RawData): string =>
  Array.isArray(data)
    ? Buffer.concat(data).toString("utf8")
    : Buffer.from(data as ArrayBuffer).toString("utf8");

export function createSubscriptionServer(ledger: Ledger, logger: Logger): SubscriptionServer {
  const server = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on("connection", (socket: WebSocket, request: IncomingMessage) => {
    const peer = request.socket.remoteAddress;
    logger.debug("websocket connected", { peer });
    const session = new SubscriptionSession(
      ledger,
      (text) => {
        if (socket.readyState === socket.OPEN) socket.send(text);
      },
      logger,
    );
    socket.on("message", (data) => {
      session.handleMessage(textOf(data)).catch((error: unknown) => {
        logger.error("websocket message failed", { reason: String(error) });
      });
    });
    socket.on("close", () => {
      session.close();
      logger.debug("websocket disconnected", { peer });
    });
    socket.on("error", (error) => logger.warn("websocket error", { peer, reason: error.message }));
  });
  return {
    handleUpgrade(request, socket, head) {
      server.handleUpgrade(request, socket, head, (client) => server.emit("connection", client, request));
    },
    close: () =>
      new Promise((resolve) => {
        for (const client of server.clients) client.terminate();
        server.close(() => resolve());
      }),
  };
}
