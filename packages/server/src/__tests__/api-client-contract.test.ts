/**
 * The ApiClient checks every body against the API's contract. Here the real API (buildApp on a
 * real socket and a real database) answers, and this test injects a fault on purpose: an onSend
 * hook rewrites one field of the serialised answer, as a broken proxy or a server of another
 * version might. The client must refuse it with ABAS_API__UNEXPECTED_RESPONSE naming that field.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { ABAS_API__UNEXPECTED_RESPONSE, isAbasError } from "@abas/errors";
import { createApiKey } from "@abas/db";
import { buildAttestation, openTestDatabase, seedAttestations, type TestDatabase } from "@abas/db/testing";
import { ApiClient } from "@abas/sdk";

import { buildApp } from "../app.js";
import { startServer, type RunningServer } from "../server.js";
import { CLOSED_PORT_RPC_URL } from "./support/api-under-test.js";

/** Which answers to corrupt, by path prefix, and how (on the JSON text the server serialised). */
const FAULTS: readonly { readonly path: string; corrupt(body: string): string }[] = [
  // A slot as text, as a server that forgot to convert PostgreSQL's bigint would send it.
  { path: "/api/v1/attestations?", corrupt: (body) => body.replace(/"slot":(\d+)/, '"slot":"$1"') },
  { path: "/api/v1/health", corrupt: (body) => body.replace(/"checkedAt":"[^"]*"/, '"checkedAt":"now"') },
  // A problem document without its code.
  { path: "/api/v1/agents/", corrupt: (body) => body.replace(/"code":\d+,/, "") },
];

function isUnexpectedResponse(status: number, path: string) {
  return (error: unknown) => {
    assert.ok(isAbasError(error, ABAS_API__UNEXPECTED_RESPONSE), `expected code 4702, got ${String(error)}`);
    assert.equal(error.context.status, status);
    assert.equal(error.context.reason.split(" ")[0], path);
    assert.match(
      error.message,
      new RegExp(`^The API answered HTTP ${status} with an unexpected body: ${path} `),
    );
    return true;
  };
}

describe("ApiClient, against the real API with a fault injected into its answers on purpose", () => {
  let database: TestDatabase;
  let server: RunningServer;
  let client: ApiClient;
  const seeded = buildAttestation({ slot: 7, timestamp: 1_765_000_000 });

  before(async () => {
    database = await openTestDatabase("sqlite");
    await seedAttestations(database.db, [seeded]);
    const app = await buildApp({
      db: database.db,
      dialect: database.dialect,
      rpcUrl: CLOSED_PORT_RPC_URL,
      logLevel: "silent",
    });
    // The injected fault.
    app.addHook("onSend", async (request, _reply, payload) => {
      const fault = FAULTS.find((candidate) => request.url.startsWith(candidate.path));
      // Serialised answers are text, or bytes when the server keeps them ready (attestation pages).
      const text = Buffer.isBuffer(payload) ? payload.toString("utf8") : payload;
      return fault === undefined || typeof text !== "string" ? payload : fault.corrupt(text);
    });
    server = await startServer(app, { port: 0, host: "127.0.0.1" });
    const { key } = await createApiKey(database.db, { name: "contract" });
    client = new ApiClient({ apiUrl: server.url, apiKey: key });
  });
  after(async () => {
    await server?.close();
    await database?.dispose();
  });

  it("refuses a page whose attestation has a slot as text, naming /data/0/slot", async () => {
    await assert.rejects(client.listAttestations({ limit: 5 }), isUnexpectedResponse(200, "/data/0/slot"));
  });

  it("refuses a health report (HTTP 503 is a report too) whose checkedAt is not a date-time", async () => {
    await assert.rejects(client.health(), isUnexpectedResponse(503, "/checkedAt"));
  });

  it("refuses a problem document without its code, instead of guessing the error", async () => {
    await assert.rejects(
      client.getAgent("GMiUU8V53C3FezywWX9AkhyvxbHz9TNTACvhPnD9y3HD"),
      isUnexpectedResponse(404, "/code"),
    );
  });

  it("returns the answers left intact, which match the contract", async () => {
    const lookup = await client.getAttestation(seeded.id);
    assert.deepEqual(
      lookup.data.map((attestation) => [attestation.id, attestation.slot]),
      [[seeded.id, 7]],
    );
  });
});
