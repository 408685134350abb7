/**
 * An HTTP server that answers JSON-RPC batches as told: a fault injected on purpose, as a broken or
 * overloaded RPC provider would answer.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export type Request = { id: number; method: string };

/** An HTTP server answering each batch with what `answer` makes of its requests. */
export async function misbehavingServer(
  answer: (requests: Request[]) => { status?: number; body: string },
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      const reply = answer(JSON.parse(body) as Request[]);
      response.writeHead(reply.status ?? 200, { "content-type": "application/json" }).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
