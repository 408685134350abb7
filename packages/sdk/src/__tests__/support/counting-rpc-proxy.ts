/**
 * A real HTTP server in front of a ledger's JSON-RPC endpoint: it forwards every request as it is
 * and counts the requests by method, so that a test can tell how many an operation made. A test
 * can also inject faults on purpose (`setFault`): an outage, a lost answer, a stale read.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** What the proxy answers: the ledger's answer, or one a fault made up. */
export type RpcAnswer = Readonly<{ status: number; body: Uint8Array | string }>;

/**
 * A fault a test injects on purpose: given the request (its parsed JSON body) and a way to forward
 * it to the ledger, the answer to give instead of the ledger's.
 */
export type RpcFault = (
  request: { method: string; id: unknown },
  forward: () => Promise<RpcAnswer>,
) => Promise<RpcAnswer>;

export type CountingRpcProxy = Readonly<{
  url: string;
  /** The requests forwarded since the last `takeCounts`, by method; then starts counting anew. */
  takeCounts: () => Record<string, number>;
  /** Answers every request through `fault` from now on; `undefined` forwards them as they are again. */
  setFault: (fault: RpcFault | undefined) => void;
  close: () => Promise<void>;
}>;

export async function startCountingRpcProxy(targetUrl: string): Promise<CountingRpcProxy> {
  let counts: Record<string, number> = {};
  let fault: RpcFault | undefined;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const parsed = JSON.parse(body.toString("utf8")) as
        { method: string; id: unknown } | { method: string; id: unknown }[];
      for (const { method } of Array.isArray(parsed) ? parsed : [parsed])
        counts[method] = (counts[method] ?? 0) + 1;
      const forward = async (): Promise<RpcAnswer> => {
        const answer = await fetch(targetUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        return { status: answer.status, body: new Uint8Array(await answer.arrayBuffer()) };
      };
      const injected = fault;
      (injected === undefined || Array.isArray(parsed) ? forward() : injected(parsed, forward))
        .then((answer) => {
          const type = answer.status === 200 ? "application/json" : "text/plain";
          response.writeHead(answer.status, { "content-type": type });
          response.end(answer.body);
        })
        .catch((error: unknown) => response.destroy(error as Error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setFault: (injected) => {
      fault = injected;
    },
    takeCounts: () => {
      const taken = counts;
      counts = {};
      return taken;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
