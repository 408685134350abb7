import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, it } from "node:test";

import { ABAS_API__INTERNAL_ERROR } from "@abas/errors";
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from "@abas/db/testing";

import { problemOf, startApiUnderTest, type ApiUnderTest } from "./support/api-under-test.js";

/** A pino destination that keeps every log line. */
function captureLogs(): { stream: Writable; lines: () => Record<string, unknown>[]; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString("utf8"));
      done();
    },
  });
  const text = () => chunks.join("");
  return {
    stream,
    text,
    lines: () =>
      text()
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

for (const target of testDatabaseTargets()) {
  describe(`errors and logs on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let api: ApiUnderTest;
    let logs: ReturnType<typeof captureLogs>;
    beforeEach(async () => {
      database = await openTestDatabase(target.dialect);
      logs = captureLogs();
      api = await startApiUnderTest(database, { logLevel: "debug", logStream: logs.stream });
    });
    afterEach(async () => {
      await api?.close();
      await database?.dispose().catch(() => undefined);
    });

    it("answers a failure inside the server with a 500 that leaks nothing, and logs it under the request id", async () => {
      // Given a database that has gone away under a running server
      await database.handle.close();
      // When a data route is asked
      const reply = await api.get("/attestations", {
        authorization: `Bearer ${api.apiKey}`,
        "x-request-id": "trace-42",
      });
      // Then the caller gets a generic problem naming only the request id
      assert.equal(reply.status, 500);
      const problem = problemOf(reply);
      assert.equal(problem.code, ABAS_API__INTERNAL_ERROR);
      assert.equal(problem.requestId, "trace-42");
      assert.equal(reply.headers.get("x-request-id"), "trace-42");
      assert.equal(
        problem.detail,
        "The server met an unexpected error; it is logged under request id trace-42",
      );
      assert.doesNotMatch(reply.text, /destroyed|kysely|sqlite|postgres|stack|at /i);
      // And the log holds the real error with that id
      const failure = logs.lines().find((line) => line.msg === "request failed");
      assert.equal(failure?.reqId, "trace-42");
      assert.ok(JSON.stringify(failure?.err).length > 20);
    });

    it("never writes an API key into the log, even at debug level", async () => {
      // When requests carry the key both ways, and a bad key is refused
      await api.get("/attestations", { authorization: `Bearer ${api.apiKey}` });
      await api.get("/attestations", { "x-api-key": api.apiKey });
      await api.get("/attestations", { "x-api-key": `${api.apiKey}x` });
      // Then requests were logged, without the key or its secret part
      assert.ok(logs.lines().some((line) => line.msg === "incoming request"));
      assert.ok(!logs.text().includes(api.apiKey.slice(5)), "the key's secret part is not in the log");
    });

    it("never writes an API key sent in the query string into the log", async () => {
      // When a client puts its key in the URL, where keys are never accepted
      const refused = await api.get(`/attestations?api_key=${api.apiKey}`, {});
      await api.get(`/attestations?limit=5&token=${encodeURIComponent(api.apiKey)}`, {
        authorization: `Bearer ${api.apiKey}`,
      });
      await api.get(`/agents/${api.apiKey}`, {});
      // Then it is refused, and the logged URLs keep the path and names but not the key
      assert.equal(refused.status, 401);
      const urls = logs
        .lines()
        .filter((line) => line.msg === "incoming request")
        .map((line) => (line.req as { url: string }).url);
      assert.deepEqual(urls, [
        "/api/v1/attestations?api_key=[redacted]",
        "/api/v1/attestations?limit=5&token=[redacted]",
        "/api/v1/agents/[redacted]",
      ]);
      assert.ok(!logs.text().includes(api.apiKey.slice(5)), "the key's secret part is not in the log");
    });

    it("uses a fresh request id unless the caller sends a plain one", async () => {
      const generated = await api.get("/ping", {});
      assert.match(generated.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
      const unsafe = await api.get("/ping", { "x-request-id": "evil\tvalue with spaces" });
      assert.match(unsafe.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
    });
  });
}
