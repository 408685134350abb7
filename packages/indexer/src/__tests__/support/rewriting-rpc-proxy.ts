/**
 * An HTTP server in front of a ledger's JSON-RPC: it forwards every call, single or in a batch, and
 * hands each answer to `rewrite`, which may return another in its place (a fault injected on
 * purpose, as a node of a cluster or a node behind answers).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import type { DatabaseHandle } from "@abas/db";

import { createIndexerLogger, startIndexer, type RunningIndexer } from "../../index.js";
import type { TestLedger } from "./test-ledger.js";

export type RpcCall = { jsonrpc: "2.0"; id: number | string; method: string; params?: unknown[] };
export type RpcAnswer = { jsonrpc: "2.0"; id: number | string; result?: unknown; error?: unknown };

export async function rewritingRpcProxy(
  rpcUrl: string,
  rewrite: (call: RpcCall, answer: RpcAnswer) => RpcAnswer,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      void (async () => {
        const upstream = await fetch(rpcUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        const calls = JSON.parse(body) as RpcCall | RpcCall[];
        const answers = JSON.parse(await upstream.text()) as RpcAnswer | RpcAnswer[];
        const rewritten = Array.isArray(calls)
          ? (answers as RpcAnswer[]).map((answer, index) => rewrite(calls[index]!, answer))
          : rewrite(calls, answers as RpcAnswer);
        response
          .writeHead(upstream.status, { "content-type": "application/json" })
          .end(JSON.stringify(rewritten));
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** An indexer that reads `ledger` through a rewriting proxy, polling every 100 ms; `stop` stops both. */
export async function indexerBehindProxy(
  ledger: TestLedger,
  database: DatabaseHandle,
  rewrite: (call: RpcCall, answer: RpcAnswer) => RpcAnswer,
): Promise<{ indexer: RunningIndexer; stop: () => Promise<void> }> {
  const proxy = await rewritingRpcProxy(ledger.rpcUrl, rewrite);
  const indexer = await startIndexer({
    rpcUrl: proxy.url,
    wsUrl: ledger.wsUrl,
    programId: ledger.programId,
    database,
    pollIntervalMs: 100,
    logger: createIndexerLogger("silent"),
  });
  return {
    indexer,
    stop: async () => {
      await indexer.stop();
      await proxy.close();
    },
  };
}
