import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, describe, it } from "node:test";

import {
  ABAS_API__NETWORK_ERROR,
  ABAS_API__REQUEST_TIMEOUT,
  ABAS_API__UNEXPECTED_RESPONSE,
  ABAS_SDK__INVALID_CLIENT_CONFIG,
  isAbasError,
} from "@abas/errors";
import { ApiClient } from "@abas/sdk";

const KEY = "abas_11111111111111111111111111111111111111111111";

/** A server that answers each request with what `respond` says (or never, when it returns undefined). */
async function startFakeApi(
  respond: (
    url: string,
    headers: Record<string, unknown>,
  ) => { status: number; body: string; type?: string } | undefined,
): Promise<{ url: string; server: Server; seen: { url: string; headers: Record<string, unknown> }[] }> {
  const seen: { url: string; headers: Record<string, unknown> }[] = [];
  const server = createServer((request, response) => {
    seen.push({ url: request.url ?? "", headers: request.headers });
    const answer = respond(request.url ?? "", request.headers);
    if (answer === undefined) return; // hang
    response.writeHead(answer.status, { "content-type": answer.type ?? "application/json" });
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, server, seen };
}

describe("ApiClient", () => {
  let fake: Awaited<ReturnType<typeof startFakeApi>>;
  before(async () => {
    fake = await startFakeApi((url) => {
      if (url.startsWith("/api/v1/hang")) return undefined;
      if (url.startsWith("/api/v1/attestations?"))
        return { status: 200, body: '{"data":[],"pagination":{"nextCursor":null,"hasMore":false}}' };
      if (url.startsWith("/api/v1/agents/html"))
        return { status: 502, body: "<html>bad gateway</html>", type: "text/html" };
      return { status: 418, body: '{"title":"teapot"}' };
    });
  });
  after(() => {
    fake.server.closeAllConnections();
    fake.server.close();
  });

  it("sends the key as a bearer token and the query as URL parameters", async () => {
    const client = new ApiClient({ apiUrl: `${fake.url}/api/v1/`, apiKey: KEY });
    await client.listAttestations({
      limit: 5,
      privacy: false,
      since: new Date(Date.UTC(2026, 10, 21)),
      until: 1_800_000_000,
    });
    const request = fake.seen.at(-1)!;
    assert.equal(
      request.url,
      "/api/v1/attestations?limit=5&privacy=false&since=2026-11-21T00%3A00%3A00.000Z&until=1800000000",
    );
    assert.equal(request.headers.authorization, `Bearer ${KEY}`);
  });

  it("names a refused connection ABAS_API__NETWORK_ERROR", async () => {
    const client = new ApiClient({ apiUrl: "http://127.0.0.1:9", apiKey: KEY });
    await assert.rejects(client.listAttestations(), (error) => isAbasError(error, ABAS_API__NETWORK_ERROR));
  });

  it("names a request without an answer in time ABAS_API__REQUEST_TIMEOUT", async () => {
    const client = new ApiClient({ apiUrl: `${fake.url}/api/v1/hang`, apiKey: KEY, timeoutMs: 200 });
    await assert.rejects(
      client.health(),
      (error) => isAbasError(error, ABAS_API__REQUEST_TIMEOUT) && error.context.timeoutMs === 200,
    );
  });

  it("names a body that is not JSON, or not a problem document, ABAS_API__UNEXPECTED_RESPONSE", async () => {
    const client = new ApiClient({ apiUrl: fake.url, apiKey: KEY });
    await assert.rejects(
      client.getAgent("html"),
      (error) => isAbasError(error, ABAS_API__UNEXPECTED_RESPONSE) && error.context.status === 502,
    );
    await assert.rejects(
      client.getAttestation("x"),
      (error) => isAbasError(error, ABAS_API__UNEXPECTED_RESPONSE) && error.context.status === 418,
    );
  });

  it("refuses an invalid configuration before any request", () => {
    for (const config of [
      { apiUrl: "ftp://host", apiKey: KEY },
      { apiUrl: "not a url", apiKey: KEY },
      { apiUrl: "http://host", apiKey: "" },
      { apiUrl: "http://host", apiKey: KEY, timeoutMs: 0 },
    ]) {
      assert.throws(
        () => new ApiClient(config),
        (error) => isAbasError(error, ABAS_SDK__INVALID_CLIENT_CONFIG),
      );
    }
  });
});
