import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import {
  ABAS_API__API_KEY_MALFORMED,
  ABAS_API__API_KEY_MISSING,
  ABAS_API__API_KEY_REVOKED,
  ABAS_API__API_KEY_UNKNOWN,
  isAbasError,
} from "@abas/errors";
import { createApiKey, revokeApiKey } from "@abas/db";
import { openTestDatabase, randomAddress, testDatabaseTargets, type TestDatabase } from "@abas/db/testing";
import { ApiClient } from "@abas/sdk";

import { httpGet, problemOf, startApiUnderTest, type ApiUnderTest } from "./support/api-under-test.js";

const PROTECTED_PATHS = [
  "/attestations",
  "/attestations/11111111111111111111111111111111",
  `/agents/${"1".repeat(32)}`,
];

for (const target of testDatabaseTargets()) {
  describe(`API keys on the REST API on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let api: ApiUnderTest;
    before(async () => {
      database = await openTestDatabase(target.dialect);
      api = await startApiUnderTest(database);
    });
    after(async () => {
      await api?.close();
      await database?.dispose();
    });

    async function assertRefused(
      headers: Record<string, string>,
      code: number,
      path = "/attestations",
    ): Promise<void> {
      const reply = await api.get(path, headers);
      assert.equal(reply.status, 401, `${JSON.stringify(headers)} on ${path}: ${reply.text}`);
      const problem = problemOf(reply);
      assert.equal(problem.code, code);
      assert.equal(problem.status, 401);
      // A refusal says nothing about rate limits: no bucket was touched
      assert.equal(reply.headers.get("ratelimit-remaining"), null);
      // And it names the scheme to use (RFC 9110 11.6.1), with RFC 6750's error for a bad key
      assert.equal(
        reply.headers.get("www-authenticate"),
        code === ABAS_API__API_KEY_MISSING
          ? 'Bearer realm="abas"'
          : 'Bearer realm="abas", error="invalid_token"',
      );
    }

    it("accepts a key as a bearer token or in X-API-Key", async () => {
      assert.equal((await api.get("/attestations", { authorization: `Bearer ${api.apiKey}` })).status, 200);
      assert.equal((await api.get("/attestations", { authorization: `bearer  ${api.apiKey}` })).status, 200);
      assert.equal((await api.get("/attestations", { "x-api-key": api.apiKey })).status, 200);
      assert.equal(
        (await api.get("/attestations", { "x-api-key": api.apiKey, authorization: `Bearer ${api.apiKey}` }))
          .status,
        200,
      );
    });

    it("refuses a request without a key with ABAS_API__API_KEY_MISSING on every protected route", async () => {
      for (const path of PROTECTED_PATHS) await assertRefused({}, ABAS_API__API_KEY_MISSING, path);
    });

    it("refuses a malformed key or header with ABAS_API__API_KEY_MALFORMED", async () => {
      await assertRefused({ authorization: api.apiKey }, ABAS_API__API_KEY_MALFORMED);
      await assertRefused(
        { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` },
        ABAS_API__API_KEY_MALFORMED,
      );
      await assertRefused({ authorization: "Bearer" }, ABAS_API__API_KEY_MALFORMED);
      await assertRefused({ authorization: "Bearer not-a-key" }, ABAS_API__API_KEY_MALFORMED);
      await assertRefused({ "x-api-key": "abas_0OIl" }, ABAS_API__API_KEY_MALFORMED);
      await assertRefused({ "x-api-key": "" }, ABAS_API__API_KEY_MALFORMED);
      const { key: other } = await createApiKey(database.db, { name: "other" });
      await assertRefused(
        { authorization: `Bearer ${api.apiKey}`, "x-api-key": other },
        ABAS_API__API_KEY_MALFORMED,
      );
    });

    it("refuses a well-formed key that was never issued with ABAS_API__API_KEY_UNKNOWN", async () => {
      const { key } = await createApiKey(database.db, { name: "template" });
      const unknown = key.slice(0, -2) + (key.endsWith("zz") ? "yy" : "zz");
      await assertRefused({ authorization: `Bearer ${unknown}` }, ABAS_API__API_KEY_UNKNOWN);
      await assertRefused({ "x-api-key": `abas_${randomAddress()}` }, ABAS_API__API_KEY_UNKNOWN);
    });

    it("refuses a revoked key with ABAS_API__API_KEY_REVOKED once its verification is older than the key cache's bound", async () => {
      // Given a server that trusts a verified key for 2 s, on a clock the test moves
      let clock = 1_000_000;
      const cached = await startApiUnderTest(database, { apiKeyCacheMs: 2_000, now: () => clock });
      try {
        const { key, record } = await createApiKey(database.db, { name: "to revoke, cached" });
        const headers = { authorization: `Bearer ${key}` };
        assert.equal((await cached.get("/attestations", headers)).status, 200);
        // When the key is revoked
        await revokeApiKey(database.db, record.id);
        // Then it is served at most until its verification is 2 s old (the documented delay)
        clock += 2_000;
        assert.equal((await cached.get("/attestations", headers)).status, 200);
        // And refused with its code from the first request after that
        clock += 1;
        const refused = await cached.get("/attestations", headers);
        assert.equal(refused.status, 401, refused.text);
        assert.equal(problemOf(refused).code, ABAS_API__API_KEY_REVOKED);
        // And a key verified before the clock went back is verified again, not trusted for longer
        const { key: other, record: otherRecord } = await createApiKey(database.db, {
          name: "before a clock step",
        });
        const otherHeaders = { authorization: `Bearer ${other}` };
        assert.equal((await cached.get("/attestations", otherHeaders)).status, 200);
        await revokeApiKey(database.db, otherRecord.id);
        clock -= 3_600_000;
        assert.equal(
          problemOf(await cached.get("/attestations", otherHeaders)).code,
          ABAS_API__API_KEY_REVOKED,
        );
      } finally {
        await cached.close();
      }
    });

    it("refuses a revoked key from the next request on when the key cache is off (0 ms)", async () => {
      const uncached = await startApiUnderTest(database, { apiKeyCacheMs: 0 });
      try {
        const { key, record } = await createApiKey(database.db, { name: "to revoke, uncached" });
        const headers = { authorization: `Bearer ${key}` };
        assert.equal((await uncached.get("/attestations", headers)).status, 200);
        await revokeApiKey(database.db, record.id);
        const refused = await uncached.get("/attestations", headers);
        assert.equal(refused.status, 401, refused.text);
        assert.equal(problemOf(refused).code, ABAS_API__API_KEY_REVOKED);
      } finally {
        await uncached.close();
      }
    });

    it("gives the ApiClient each refusal as an AbasError with its code", async () => {
      const { key, record } = await createApiKey(database.db, { name: "client" });
      await revokeApiKey(database.db, record.id);
      const cases: [string, number][] = [
        ["not-a-key", ABAS_API__API_KEY_MALFORMED],
        [`abas_${randomAddress()}`, ABAS_API__API_KEY_UNKNOWN],
        [key, ABAS_API__API_KEY_REVOKED],
      ];
      for (const [apiKey, code] of cases) {
        const client = new ApiClient({ apiUrl: api.baseUrl, apiKey });
        await assert.rejects(client.listAttestations(), (error) => isAbasError(error) && error.code === code);
      }
    });

    it("keeps health, ping and the OpenAPI document public", async () => {
      for (const path of ["/health", "/ping", "/openapi.json"]) {
        const reply = await httpGet(`${api.baseUrl}/api/v1${path}`);
        assert.notEqual(reply.status, 401, path);
        assert.ok(
          reply.status === 200 || (path === "/health" && reply.status === 503),
          `${path}: ${reply.status}`,
        );
      }
    });

    it("records a key's last use", async () => {
      const { key, record } = await createApiKey(database.db, { name: "used" });
      assert.equal((await api.get("/attestations", { "x-api-key": key })).status, 200);
      await api.app.lastUsed.flush();
      const row = await database.db
        .selectFrom("api_keys")
        .select("last_used_at")
        .where("id", "=", record.id)
        .executeTakeFirstOrThrow();
      assert.ok(row.last_used_at !== null && Math.abs(Number(row.last_used_at) - Date.now()) < 60_000);
    });
  });
}
