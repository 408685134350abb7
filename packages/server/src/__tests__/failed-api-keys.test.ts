/**
 * Guessing keys costs the server a database query each: refused keys (unknown or revoked) are
 * counted per client address, and past the limit the client gets 429 with Retry-After before any
 * query is made. A request without a key costs nothing and is never counted.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";

import {
  ABAS_API__API_KEY_MISSING,
  ABAS_API__API_KEY_UNKNOWN,
  ABAS_API__TOO_MANY_FAILED_API_KEYS,
} from "@abas/errors";
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from "@abas/db/testing";

import { problemOf, startApiUnderTest, type ApiUnderTest, type HttpReply } from "./support/api-under-test.js";

const NEVER_ISSUED = `abas_${"1".repeat(43)}`;

/** A GET sent from another loopback address: another client as the server sees it. */
function getFrom(localAddress: string, url: string, headers: Record<string, string>): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { localAddress, headers }, (response) => {
      let text = "";
      response.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: new Headers(response.headers as Record<string, string>),
          body: JSON.parse(text) as unknown,
          text,
        }),
      );
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

for (const target of testDatabaseTargets()) {
  describe(`refused API keys on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let api: ApiUnderTest;
    before(async () => {
      database = await openTestDatabase(target.dialect);
      // 3 refused keys a minute per client address
      api = await startApiUnderTest(database, { failedApiKeysPerMinute: 3 });
    });
    after(async () => {
      await api?.close();
      await database?.dispose();
    });

    it("answers 429 with Retry-After once a client has guessed too many keys", async () => {
      // Given a client that sends three keys that were never issued
      for (let i = 0; i < 3; i++) {
        const reply = await api.get("/attestations", { authorization: `Bearer ${NEVER_ISSUED}` });
        assert.equal(problemOf(reply).code, ABAS_API__API_KEY_UNKNOWN);
      }
      // When it tries a fourth, and then its valid key
      const limited = await api.get("/attestations", { authorization: `Bearer ${NEVER_ISSUED}` });
      const valid = await api.get("/attestations", { authorization: `Bearer ${api.apiKey}` });

      // Then both wait: 429, the code, and when to come back (one refusal is earned back every 20 s)
      for (const reply of [limited, valid]) {
        assert.equal(reply.status, 429);
        const problem = problemOf(reply);
        assert.equal(problem.code, ABAS_API__TOO_MANY_FAILED_API_KEYS);
        const retryAfter = Number(reply.headers.get("retry-after"));
        assert.ok(retryAfter >= 19 && retryAfter <= 20, `Retry-After ${retryAfter}`);
        assert.deepEqual(problem.context, { limit: 3, windowSeconds: 60, retryAfterSeconds: retryAfter });
      }

      // And another client address keeps its own allowance
      const other = await getFrom("127.0.0.2", `${api.baseUrl}/api/v1/attestations`, {
        authorization: `Bearer ${api.apiKey}`,
      });
      assert.equal(other.status, 200, other.text);
    });

    it("never counts a request that sends no key", async () => {
      for (let i = 0; i < 6; i++) {
        const reply = await getFrom("127.0.0.3", `${api.baseUrl}/api/v1/attestations`, {});
        assert.equal(reply.status, 401);
        assert.equal(problemOf(reply).code, ABAS_API__API_KEY_MISSING);
      }
      const valid = await getFrom("127.0.0.3", `${api.baseUrl}/api/v1/attestations`, {
        authorization: `Bearer ${api.apiKey}`,
      });
      assert.equal(valid.status, 200);
    });
  });
}
