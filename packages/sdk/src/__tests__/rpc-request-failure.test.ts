/**
 * An RPC request that fails names its method and why, from the failure itself: a real client on a
 * closed port, on an HTTP server that answers 503, and on a host name that does not resolve.
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

  before(async () => {
    unavailable = createServer((_request, response) => {
      response.statusCode = 503;
      response.end("down for maintenance");
    });
    await new Promise<void>((resolve) => unavailable.listen(0, "127.0.0.1", resolve));
    unavailableUrl = `http://127.0.0.1:${(unavailable.address() as AddressInfo).port}`;
  });
  after(() => unavailable.close());

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

  it("names a host that does not resolve", async () => {
    const error = await failureOf("http://abas-no-such-host.invalid:8899");
    assert.match(error.message, /failed: fetch failed: getaddrinfo \w+ abas-no-such-host\.invalid$/);
  });
});
