/**
 * The OpenAPI document `npm start` serves describes its HTTP APIs only (the REST API and the
 * Solana Actions endpoints), not the web app's pages or assets; every operation has an id, a
 * summary, its security and its error responses; and Redocly's linter (its `recommended` rules)
 * finds no error in it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { openTestDatabase, type TestDatabase } from "@abas/db/testing";
import { createConfig, lintFromString } from "@redocly/openapi-core";

import { buildServiceApp } from "../build-service-app.js";

interface Operation {
  operationId?: string;
  summary?: string;
  security?: unknown[];
  responses?: Record<string, unknown>;
}
type OpenApiDocument = { paths: Record<string, Record<string, Operation>> };

const HTTP_API_PATHS = [
  "/actions.json",
  "/api/actions/verify",
  "/api/actions/verify/card.png",
  "/api/actions/verify/{id}",
  "/api/v1/agents/{id}",
  "/api/v1/attestations",
  "/api/v1/attestations/{id}",
  "/api/v1/health",
  "/api/v1/openapi.json",
  "/api/v1/ping",
  "/api/v1/ready",
];

describe("the OpenAPI document of npm start", () => {
  let database: TestDatabase;
  let document: OpenApiDocument;
  let text: string;
  let close: () => Promise<void>;
  before(async () => {
    database = await openTestDatabase("sqlite");
    const app = await buildServiceApp({
      db: database.db,
      dialect: database.dialect,
      rpcUrl: "http://127.0.0.1:9",
      programId: undefined,
      config: { publicUrl: undefined, logLevel: "silent", trustProxy: undefined },
    });
    close = () => app.close();
    const reply = await app.inject({ method: "GET", url: "/api/v1/openapi.json" });
    assert.equal(reply.statusCode, 200);
    text = reply.body;
    document = JSON.parse(text) as OpenApiDocument;
  });
  after(async () => {
    await close?.();
    await database?.dispose();
  });

  it("lists the REST API and the Actions endpoints, and no page or asset", () => {
    assert.deepEqual(Object.keys(document.paths).sort(), HTTP_API_PATHS);
  });

  it("gives every operation an id, a summary, its security and an error response", () => {
    const ids = new Set<string>();
    for (const [path, methods] of Object.entries(document.paths)) {
      assert.deepEqual(Object.keys(methods), ["get"], `${path}: GET only (OPTIONS is CORS preflight)`);
      const operation = methods.get!;
      assert.ok(operation.operationId && !ids.has(operation.operationId), `${path}: a unique operationId`);
      ids.add(operation.operationId);
      assert.ok(operation.summary, `${path}: a summary`);
      assert.ok(Array.isArray(operation.security), `${path}: its security`);
      const statuses = Object.keys(operation.responses ?? {});
      assert.ok(
        statuses.some((status) => Number(status) >= 400),
        `${path}: an error response (${statuses})`,
      );
    }
  });

  it("passes Redocly's recommended lint rules without an error", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: text, absoluteRef: "openapi.json", config });
    const errors = problems.filter((problem) => problem.severity === "error");
    assert.deepEqual(
      errors.map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`),
      [],
    );
  });
});
