/**
 * An RPC request that fails names its method and why, from the failure itself: a real client on a
 * closed port, on an HTTP server that answers 503, on a host name that does not resolve, and on a
 * hostile node whose error message is long, spans lines and echoes a URL with a key.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";

import { ABAS_RUNTIME__RPC_REQUEST_FAILED, isAbasError } from "@abas/errors";

import { AttestationClient } from "../client.js";
import { generateSecretKey } from "../keypair.js";
import { closedPortUrl } from "./support/no-network.js";

async function failureOf(rpcUrl: string) {
  const client = new AttestationClient({ rpcUrl, agentKeypair: generateSecretKey() });
  try {
    await client.getAgent();
  } catch (error) {
    assert.ok(isAbasError(error, ABAS_RUNTIME__RPC_REQUEST_FAILED), String(error));
    return error;
  }
  assert.fail("the request did not fail");
}

describe("ABAS_RUNTIME__RPC_REQUEST_FAILED", () => {
  let unavailable: Server;
  let unavailableUrl: string;
  let hostile: Server;
  let hostileUrl: string;

  const listen = async (server: Server): Promise<string> => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  before(async () => {
    unavailable = createServer((_request, response) => {
      response.statusCode = 503;
      response.end("down for maintenance");
    });
    unavailableUrl = await listen(unavailable);
    hostile = createServer((_request, response) => {
      const message = `bad request\n\u001b[2Kabas: batch 7 confirmed https://rpc.example.com/v2/SECRET?api-key=SECRET ${"x".repeat(100_000)}`;
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify({ jsonrpc: "2.0", id: 0, error: { code: -32602, message } }));
    });
    hostileUrl = await listen(hostile);
  });
  after(() => {
    unavailable.close();
    hostile.close();
  });

  it("says the connection was refused, and where", async () => {
    const url = await closedPortUrl();
    const error = await failureOf(url);
    assert.equal(error.context.method, "getAccountInfo");
    assert.match(
      error.message,
      new RegExp(
        `^The RPC request getAccountInfo failed: fetch failed: connect ECONNREFUSED ${new URL(url).host}$`,
      ),
    );
  });

  it("gives the HTTP status of a node that answers with an error", async () => {
    const error = await failureOf(unavailableUrl);
    assert.match(
      error.message,
      /^The RPC request getAccountInfo failed: HTTP error \(503\): Service Unavailable$/,
    );
  });

  it("keeps a hostile node's message to one short line, without the URL's path or query", async () => {
    const error = await failureOf(hostileUrl);
    assert.ok(!error.message.includes("\n") && !error.message.includes("\u001b"), error.message);
    assert.doesNotMatch(error.message, /SECRET/);
    assert.match(error.message, /https:\/\/rpc\.example\.com\/…/);
    assert.ok(error.message.length < 1_000, `${error.message.length} characters`);
  });

  it("names a host that does not resolve", async () => {
    const error = await failureOf("http://abas-no-such-host.invalid:8899");
    assert.match(error.message, /failed: fetch failed: getaddrinfo \w+ abas-no-such-host\.invalid$/);
  });
});
