import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import {
  ABAS_API__CURSOR_EXPIRED,
  ABAS_API__INVALID_CURSOR,
  ABAS_API__INVALID_PARAMETER,
  ABAS_API__INVALID_TIME_RANGE,
  ABAS_API__ROUTE_NOT_FOUND,
  isAbasError,
} from "@abas/errors";
import {
  buildAttestation,
  openTestDatabase,
  seedAttestations,
  testDatabaseTargets,
  type TestDatabase,
} from "@abas/db/testing";

import { problemOf, startApiUnderTest, type ApiUnderTest } from "./support/api-under-test.js";

for (const target of testDatabaseTargets()) {
  describe(`bad parameters on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let api: ApiUnderTest;
    let validCursor: string;
    before(async () => {
      database = await openTestDatabase(target.dialect);
      api = await startApiUnderTest(database);
      await seedAttestations(
        database.db,
        Array.from({ length: 3 }, (_, i) => buildAttestation({ slot: i + 1, timestamp: 1_765_000_000 + i })),
      );
      const page = await api.client.listAttestations({ limit: 1 });
      validCursor = page.pagination.nextCursor!;
    });
    after(async () => {
      await api?.close();
      await database?.dispose();
    });

    async function assertBadRequest(search: string, code: number, parameter?: string): Promise<void> {
      const reply = await api.get(`/attestations?${search}`);
      assert.equal(reply.status, 400, `${search}: ${reply.text}`);
      const problem = problemOf(reply);
      assert.equal(problem.code, code, `${search}: ${reply.text}`);
      assert.equal(problem.status, 400);
      assert.match(problem.type, /^urn:abas:error:/);
      assert.ok(problem.title.length > 0 && problem.detail.length > 0 && problem.requestId.length > 0);
      if (parameter !== undefined) assert.equal(problem.context?.parameter, parameter, search);
    }

    it("refuses a limit that is 0, above 100, not a number or not whole", async () => {
      // Texts JavaScript would read as a number are refused too: hexadecimal, spaces, exponents, signs
      for (const limit of [
        "0",
        "101",
        "abc",
        "1.5",
        "-1",
        "",
        "0x14",
        "%2020",
        "20%20",
        "1e1",
        "%2B5",
        "5.0",
      ]) {
        await assertBadRequest(`limit=${limit}`, ABAS_API__INVALID_PARAMETER, "limit");
      }
      assert.equal((await api.get("/attestations?limit=100")).status, 200);
      assert.equal((await api.get("/attestations?limit=1")).status, 200);
      assert.equal((await api.get("/attestations?limit=020")).status, 200);
    });

    it("refuses a malformed percent escape in a query parameter as that parameter", async () => {
      await assertBadRequest("limit=%E0%A4%A", ABAS_API__INVALID_PARAMETER, "limit");
      await assertBadRequest("agent=%ZZ", ABAS_API__INVALID_PARAMETER, "agent");
    });

    it("refuses a malformed, tampered or foreign cursor with ABAS_API__INVALID_CURSOR", async () => {
      const tampered = validCursor.slice(0, -1) + (validCursor.endsWith("A") ? "B" : "A");
      const foreign = Buffer.from("page=2").toString("base64url");
      for (const cursor of ["!!!", "x".repeat(45), tampered, foreign, encodeURIComponent("MS4y=")]) {
        await assertBadRequest(`cursor=${cursor}`, ABAS_API__INVALID_CURSOR);
      }
      assert.equal((await api.get(`/attestations?cursor=${validCursor}`)).status, 200);
    });

    it("refuses an unknown action type, a privacy flag that is not true/false, and a bad address", async () => {
      await assertBadRequest("actionType=Payment", ABAS_API__INVALID_PARAMETER, "actionType");
      await assertBadRequest("actionType=toolcall", ABAS_API__INVALID_PARAMETER, "actionType");
      await assertBadRequest("privacy=yes", ABAS_API__INVALID_PARAMETER, "privacy");
      await assertBadRequest("agent=0xdeadbeef", ABAS_API__INVALID_PARAMETER, "agent");
      await assertBadRequest("operator=short", ABAS_API__INVALID_PARAMETER, "operator");
      await assertBadRequest("batch=" + "l".repeat(40), ABAS_API__INVALID_PARAMETER, "batch");
      await assertBadRequest("storedHash=" + "A".repeat(64), ABAS_API__INVALID_PARAMETER, "storedHash");
      await assertBadRequest("storedHash=" + "0".repeat(63), ABAS_API__INVALID_PARAMETER, "storedHash");
    });

    it("refuses a bad time, and since not before until", async () => {
      await assertBadRequest("since=yesterday", ABAS_API__INVALID_PARAMETER, "since");
      await assertBadRequest("until=2026-02-31", ABAS_API__INVALID_PARAMETER, "until");
      await assertBadRequest("since=2026-11-21T25:00:00Z", ABAS_API__INVALID_PARAMETER, "since");
      await assertBadRequest("since=1765000100&until=1765000000", ABAS_API__INVALID_TIME_RANGE);
      await assertBadRequest("since=1765000000&until=1765000000", ABAS_API__INVALID_TIME_RANGE);
      await assertBadRequest("since=2026-11-22&until=2026-11-21", ABAS_API__INVALID_TIME_RANGE);
    });

    it("refuses a parameter the route does not have, so a typo never widens a filter", async () => {
      await assertBadRequest("agnet=11111111111111111111111111111111", ABAS_API__INVALID_PARAMETER, "agnet");
    });

    it("refuses a malformed attestation id", async () => {
      const reply = await api.get("/attestations/not*an*id");
      assert.equal(reply.status, 400);
      assert.equal(problemOf(reply).context?.parameter, "id");
    });

    it("answers an unknown route with a 404 problem pointing to the list of routes", async () => {
      const reply = await api.get("/attestation");
      assert.equal(reply.status, 404);
      assert.equal(problemOf(reply).code, ABAS_API__ROUTE_NOT_FOUND);
      assert.match(
        problemOf(reply).detail,
        /^No route GET \/api\/v1\/attestation; GET \/api\/v1\/openapi.json lists/,
      );
      const post = await fetch(`${api.baseUrl}/api/v1/attestations`, { method: "POST" });
      assert.equal(post.status, 404);
    });

    it("gives the ApiClient a bad parameter as an AbasError with its code and context", async () => {
      await assert.rejects(
        api.client.listAttestations({ limit: 0 }),
        (error) => isAbasError(error, ABAS_API__INVALID_PARAMETER) && error.context.parameter === "limit",
      );
      await assert.rejects(api.client.listAttestations({ cursor: "nope" }), (error) =>
        isAbasError(error, ABAS_API__INVALID_CURSOR),
      );
    });

    // Last: it indexes the attestations again.
    it("refuses a cursor issued before the attestations were indexed again with ABAS_API__CURSOR_EXPIRED", async () => {
      const rows = await database.db.selectFrom("attestations").selectAll().orderBy("seq").execute();
      await database.db.deleteFrom("attestations").execute();
      await seedAttestations(
        database.db,
        rows.map(({ seq: _seq, ...row }) => row),
      );
      await assertBadRequest(`cursor=${validCursor}&limit=2`, ABAS_API__CURSOR_EXPIRED);
      await assert.rejects(api.client.listAttestations({ cursor: validCursor, limit: 3 }), (error) =>
        isAbasError(error, ABAS_API__CURSOR_EXPIRED),
      );
    });
  });
}
