/**
 * A real HTTP server in front of a ledger's JSON-RPC endpoint: it forwards every request as it is
 * and counts the requests by method, so that a test can tell how many an operation made. A test
 * can also put it in an outage on purpose: every request is then answered 503 without reaching
 * the ledger.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export type CountingRpcProxy = Readonly<{
  url: string;
  /** The requests forwarded since the last `takeCounts`, by method; then starts counting anew. */
  takeCounts: () => Record<string, number>;
  /** An outage the test injects on purpose: while on, each request gets 503, as from a proxy whose ledger is down. */
  setOutage: (on: boolean) => void;
  close: () => Promise<void>;
}>;

export async function startCountingRpcProxy(targetUrl: string): Promise<CountingRpcProxy> {
  let counts: Record<string, number> = {};
  let outage = false;
  const server = createServer((request, response) => {
    if (outage) {
      response.writeHead(503, { "content-type": "text/plain" });
      response.end("the ledger is down (an outage injected by the test)");
      return;
    }
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const parsed = JSON.parse(body.toString("utf8")) as { method: string } | { method: string }[];
      for (const { method } of Array.isArray(parsed) ? parsed : [parsed])
        counts[method] = (counts[method] ?? 0) + 1;
      fetch(targetUrl, { method: "POST", headers: { "content-type": "application/json" }, body })
        .then(async (answer) => {
          response.writeHead(answer.status, { "content-type": "application/json" });
          response.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch((error: unknown) => response.destroy(error as Error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setOutage: (on) => {
      outage = on;
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
