import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { ABAS_API__RATE_LIMITED, isAbasError } from "@abas/errors";
import { createApiKey } from "@abas/db";
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from "@abas/db/testing";

import { problemOf, startApiUnderTest, type ApiUnderTest } from "./support/api-under-test.js";

for (const target of testDatabaseTargets()) {
  describe(`rate limits on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let api: ApiUnderTest;
    before(async () => {
      database = await openTestDatabase(target.dialect);
      // 3 requests per minute per key: one every 20 s once the burst is spent
      api = await startApiUnderTest(database, { rateLimitPerMinute: 3 });
    });
    after(async () => {
      await api?.close();
      await database?.dispose();
    });

    it("counts down on successes, then answers 429 with Retry-After", async () => {
      const { key } = await createApiKey(database.db, { name: "limited" });
      const headers = { authorization: `Bearer ${key}` };
      // Given three requests within the burst
      for (const remaining of [2, 1, 0]) {
        const reply = await api.get("/attestations", headers);
        assert.equal(reply.status, 200);
        assert.equal(reply.headers.get("ratelimit-limit"), "3");
        assert.equal(reply.headers.get("ratelimit-remaining"), String(remaining));
        assert.equal(reply.headers.get("ratelimit-policy"), "3;w=60");
        assert.ok(Number(reply.headers.get("ratelimit-reset")) > 0);
      }
      // When a fourth follows at once
      const refused = await api.get("/attestations", headers);
      // Then it is refused with the time to wait
      assert.equal(refused.status, 429);
      const retryAfter = Number(refused.headers.get("retry-after"));
      assert.ok(retryAfter >= 19 && retryAfter <= 20, `Retry-After ${retryAfter}`);
      assert.equal(refused.headers.get("ratelimit-remaining"), "0");
      const problem = problemOf(refused);
      assert.equal(problem.code, ABAS_API__RATE_LIMITED);
      assert.deepEqual(problem.context, { limit: 3, windowSeconds: 60, retryAfterSeconds: retryAfter });
    });

    it("limits each key on its own, and leaves public routes alone", async () => {
      const { key: first } = await createApiKey(database.db, { name: "first" });
      const { key: second } = await createApiKey(database.db, { name: "second" });
      for (let i = 0; i < 4; i++) await api.get("/attestations", { "x-api-key": first });
      assert.equal((await api.get("/attestations", { "x-api-key": first })).status, 429);
      assert.equal((await api.get("/attestations", { "x-api-key": second })).status, 200);
      for (let i = 0; i < 5; i++) assert.equal((await api.get("/ping", {})).status, 200);
    });

    it("gives the ApiClient a 429 as ABAS_API__RATE_LIMITED with the wait in its context", async () => {
      for (let i = 0; i < 3; i++) await api.client.listAttestations();
      await assert.rejects(
        api.client.listAttestations(),
        (error) => isAbasError(error, ABAS_API__RATE_LIMITED) && error.context.retryAfterSeconds > 0,
      );
    });
  });
}
