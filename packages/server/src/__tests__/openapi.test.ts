import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { openTestDatabase, testDatabaseTargets, type TestDatabase } from "@abas/db/testing";

import { httpGet, startApiUnderTest, type ApiUnderTest } from "./support/api-under-test.js";

interface Operation {
  operationId?: string;
  summary?: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; schema?: Record<string, unknown> }[];
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
}
interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string }> };
}

const ROUTES = {
  "/api/v1/attestations": { operationId: "listAttestations", public: false },
  "/api/v1/attestations/{id}": { operationId: "getAttestation", public: false },
  "/api/v1/agents/{id}": { operationId: "getAgent", public: false },
  "/api/v1/health": { operationId: "getHealth", public: true },
  "/api/v1/ready": { operationId: "getReadiness", public: true },
  "/api/v1/ping": { operationId: "ping", public: true },
  "/api/v1/openapi.json": { operationId: "getOpenApiDocument", public: true },
} as const;

for (const target of testDatabaseTargets()) {
  describe(`OpenAPI document on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let api: ApiUnderTest;
    let document: OpenApiDocument;
    before(async () => {
      database = await openTestDatabase(target.dialect);
      api = await startApiUnderTest(database);
      const reply = await httpGet(`${api.baseUrl}/api/v1/openapi.json`);
      assert.equal(reply.status, 200);
      document = reply.body as OpenApiDocument;
    });
    after(async () => {
      await api?.close();
      await database?.dispose();
    });

    it("is an OpenAPI 3.1 document with info and both API key schemes", () => {
      assert.equal(document.openapi, "3.1.0");
      assert.equal(document.info.title, "ABAS REST API");
      assert.match(document.info.version, /^\d+\.\d+\.\d+$/);
      assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), [
        "apiKeyHeader",
        "bearerAuth",
      ]);
    });

    it("lists every route the server answers, each as one GET operation", () => {
      assert.deepEqual(Object.keys(document.paths).sort(), Object.keys(ROUTES).sort());
      for (const [path, expected] of Object.entries(ROUTES)) {
        assert.deepEqual(Object.keys(document.paths[path]!), ["get"], path);
        assert.equal(document.paths[path]!.get!.operationId, expected.operationId);
        assert.ok(document.paths[path]!.get!.summary, `${path} has a summary`);
        const fastifyPath = path.replace("{id}", ":id");
        assert.ok(api.app.hasRoute({ method: "GET", url: fastifyPath }), `the server has ${fastifyPath}`);
      }
    });

    it("answers HEAD on each GET route with its headers alone, as HTTP asks, without documenting it", async () => {
      const head = await fetch(`${api.baseUrl}/api/v1/ping`, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.match(head.headers.get("content-type") ?? "", /^application\/json/);
      assert.equal(await head.text(), "");
      const keyless = await fetch(`${api.baseUrl}/api/v1/attestations`, { method: "HEAD" });
      assert.equal(keyless.status, 401);
      assert.equal(await keyless.text(), "");
    });

    it("marks which routes need a key", () => {
      for (const [path, expected] of Object.entries(ROUTES)) {
        const security = document.paths[path]!.get!.security;
        assert.deepEqual(security, expected.public ? [] : [{ bearerAuth: [] }, { apiKeyHeader: [] }], path);
      }
    });

    it("documents the query parameters from the schemas that validate them", () => {
      const parameters = document.paths["/api/v1/attestations"]!.get!.parameters!;
      assert.deepEqual(parameters.map((parameter) => parameter.name).sort(), [
        "actionType",
        "agent",
        "batch",
        "cursor",
        "limit",
        "operator",
        "privacy",
        "since",
        "storedHash",
        "until",
      ]);
      const limit = parameters.find((parameter) => parameter.name === "limit")!;
      assert.deepEqual(
        [limit.in, limit.schema?.minimum, limit.schema?.maximum, limit.schema?.default],
        ["query", 1, 100, 20],
      );
      const actionType = parameters.find((parameter) => parameter.name === "actionType")!;
      assert.deepEqual(actionType.schema?.enum, ["Transaction", "ToolCall", "Decision", "ModelInvocation"]);
      const id = document.paths["/api/v1/agents/{id}"]!.get!.parameters!.find(
        (parameter) => parameter.name === "id",
      )!;
      assert.deepEqual([id.in, id.required], ["path", true]);
    });

    it("documents success bodies as JSON and errors as problem+json", () => {
      const responses = document.paths["/api/v1/attestations"]!.get!.responses!;
      assert.ok(responses["200"]?.content?.["application/json"]?.schema);
      for (const status of ["400", "401", "429", "500"]) {
        assert.ok(
          responses[status]?.content?.["application/problem+json"]?.schema,
          `${status} is problem+json`,
        );
      }
      const health = document.paths["/api/v1/health"]!.get!.responses!;
      assert.ok(health["200"] && health["503"]);
    });
  });
}
