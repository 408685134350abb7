/**
 * The HTTP side: JSON-RPC over POST (any path), `GET /health` as validators answer it, CORS for
 * browser clients, and WebSocket upgrades handed to the subscription server.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

import type { Logger } from "../logger.js";

/** Far above the largest legitimate request (a batch of transactions). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * How long an idle keep-alive connection stays open. Node's default, 5 s, is one second above
 * undici's (fetch's) own idle limit: a client whose loop is late by a second sends its next request
 * on a connection the server is closing, and gets ECONNRESET. Clients that poll every few seconds
 * then never come near this limit.
 */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

export type PayloadHandler = (body: string) => Promise<string | undefined>;

const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, GET, OPTIONS",
  "access-control-allow-headers": "content-type, solana-client",
};

function readBody(request: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(undefined);
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function reply(
  response: ServerResponse,
  status: number,
  body: string,
  contentType = "application/json",
): void {
  response.writeHead(status, {
    ...CORS_HEADERS,
    "content-type": contentType,
    "content-length": Buffer.byteLength(body),
  });
  response.end(body);
}

/** `unhealthy()` says why the node cannot serve (GET /health then answers 503), or undefined. */
export function createRpcHttpServer(
  handlePayload: PayloadHandler,
  logger: Logger,
  unhealthy: () => string | undefined,
): Server {
  const server = createServer((request, response) => {
    if (request.method === "OPTIONS") {
      response.writeHead(204, CORS_HEADERS);
      response.end();
      return;
    }
    if (request.method === "GET" && request.url === "/health") {
      const problem = unhealthy();
      if (problem === undefined) reply(response, 200, "ok", "text/plain");
      else reply(response, 503, `unhealthy: ${problem}`, "text/plain");
      return;
    }
    if (request.method !== "POST") {
      reply(response, 405, "Used HTTP Method is not allowed. POST or OPTIONS is required", "text/plain");
      return;
    }
    readBody(request)
      .then(async (body) => {
        if (body === undefined) {
          reply(response, 413, "Payload too large", "text/plain");
          return;
        }
        const result = await handlePayload(body);
        if (result === undefined) {
          response.writeHead(204, CORS_HEADERS);
          response.end();
        } else {
          reply(response, 200, result);
        }
      })
      .catch((error: unknown) => {
        logger.error("http request failed", { reason: String(error) });
        if (!response.headersSent) reply(response, 500, "Internal error", "text/plain");
      });
  });
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return server;
}

/** Listens and resolves with the port actually bound (useful with port 0). */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const address = server.address();
      resolve(typeof address === "object" && address !== null ? address.port : port);
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
