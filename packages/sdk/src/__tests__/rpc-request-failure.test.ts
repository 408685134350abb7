/**
 * An RPC request that fails names its method and why, from the failure itself: a real client on a
 * closed port, on an HTTP server that answers 503, on one that never answers, on a host name that
 * does not resolve, and on a hostile node whose error message is long, spans lines and echoes a URL
 * with a key.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";

import { ABAS_RUNTIME__RPC_REQUEST_FAILED, ABAS_SDK__INVALID_CLIENT_CONFIG, isAbasError } from "@abas/errors";
import { refusedUrl } from "@abas/test-support";

import { AttestationClient } from "../client.js";
import { generateSecretKey } from "../keypair.js";
import { createTimedSolanaRpc } from "../rpc-transport.js";

async function failureOf(rpcUrl: string, requestTimeoutMs?: number) {
  const client = new AttestationClient({ rpcUrl, agentKeypair: generateSecretKey(), requestTimeoutMs });
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
  /** A fault injected on purpose: a node that takes the request and never answers. */
  let silent: Server;
  let silentUrl: string;

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
    silent = createServer(() => {});
    silentUrl = await listen(silent);
  });
  after(() => {
    unavailable.close();
    hostile.close();
    silent.closeAllConnections();
    silent.close();
  });

  it("gives up on a node that does not answer within requestTimeoutMs, and says so", async () => {
    const started = Date.now();
    const error = await failureOf(silentUrl, 300);
    assert.equal(
      error.message,
      "The RPC request getAccountInfo failed: no answer from the node within 0.3 s",
    );
    assert.ok(Date.now() - started < 10_000, `gave up after ${Date.now() - started} ms`);
  });

  it("does not send a request whose caller stopped it already, and stops one in flight with the caller's reason", async () => {
    // Given a node that counts the requests it takes and never answers
    let taken = 0;
    silent.on("request", () => (taken += 1));
    const rpc = createTimedSolanaRpc(silentUrl, 60_000);
    const stopped = new Error("stopped by the caller");
    // When a request is sent with a signal that has fired already, and another stopped while it waits
    await assert.rejects(rpc.getSlot().send({ abortSignal: AbortSignal.abort(stopped) }), stopped);
    const inFlight = new AbortController();
    const waiting = rpc.getBlockHeight().send({ abortSignal: inFlight.signal });
    while (taken === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    inFlight.abort(stopped);
    // Then the first never reached the node, and the second ends with the caller's reason
    await assert.rejects(waiting, stopped);
    assert.equal(taken, 1);
  });

  it("rejects a requestTimeoutMs that is not a whole number of ms from 1 to 3,600,000: ABAS_SDK__INVALID_CLIENT_CONFIG", () => {
    for (const requestTimeoutMs of [0, -1, 1.5, 3_600_001, Number.NaN]) {
      assert.throws(
        () =>
          new AttestationClient({ rpcUrl: silentUrl, agentKeypair: generateSecretKey(), requestTimeoutMs }),
        (error: unknown) =>
          isAbasError(error, ABAS_SDK__INVALID_CLIENT_CONFIG) && /requestTimeoutMs/.test(error.message),
        String(requestTimeoutMs),
      );
    }
  });

  it("says the connection was refused, and where", async () => {
    const url = await refusedUrl();
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

  it("names an answer that is no Solana node's: not a JSON-RPC response, or a result of another shape", async () => {
    // Given servers that answer JSON, but not as a Solana node would (a fault injected on purpose:
    // an RPC URL that points at another service)
    const answers: ReadonlyArray<readonly [unknown, RegExp]> = [
      [
        {},
        /getAccountInfo failed: the answer is not a JSON-RPC response \(an object without result or error\)/,
      ],
      [[1, 2, 3], /getAccountInfo failed: the answer is not a JSON-RPC response \(an array\)/],
      ["hello", /getAccountInfo failed: the answer is not a JSON-RPC response \(a string\)/],
      [
        { jsonrpc: "2.0", id: 0, error: "oops" },
        /the answer is not a JSON-RPC response \(an error that is not an object\)/,
      ],
      [
        { jsonrpc: "2.0", id: 0, result: null },
        /getAccountInfo failed: its result is not what a Solana node answers \(null\)/,
      ],
      [
        { jsonrpc: "2.0", id: 0, result: "hello" },
        /getAccountInfo failed: its result is not what a Solana node answers \(a string\)/,
      ],
      [
        { jsonrpc: "2.0", id: 0, result: { context: { slot: 1 }, value: 7 } },
        /getAccountInfo failed: its result is not what a Solana node answers \(an object\)/,
      ],
    ];
    for (const [answer, expected] of answers) {
      const odd = createServer((_request, response) => {
        response.setHeader("content-type", "application/json");
        response.end(JSON.stringify(answer));
      });
      try {
        // Then each fails as the request it answered, with what was wrong and what to check
        const error = await failureOf(await listen(odd));
        assert.match(error.message, expected, JSON.stringify(answer));
        assert.match(error.message, /is the RPC URL a Solana JSON-RPC node\?$/);
      } finally {
        odd.close();
      }
    }
  });

  it("names a host that does not resolve", async () => {
    const error = await failureOf("http://abas-no-such-host.invalid:8899");
    assert.match(error.message, /failed: fetch failed: getaddrinfo \w+ abas-no-such-host\.invalid$/);
  });
});
