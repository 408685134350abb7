/**
 * A seeded fuzz of the REST API: thousands of random requests under /api/v1 (random paths, query
 * strings, missing, malformed, unknown and valid keys, random headers, huge values, bad cursors).
 * No answer is ever a 5xx, and every error is an application/problem+json document with a code.
 * The seed is printed; RELIABILITY_SEED=<seed> replays the same requests.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { IndexerStateKey } from "@abas/db";
import {
  buildAttestation,
  openTestDatabase,
  randomAddress,
  seedAgent,
  seedAttestations,
  setIndexerState,
  type TestDatabase,
} from "@abas/db/testing";

import {
  startApiUnderTest,
  type ApiUnderTest,
} from "../packages/server/src/__tests__/support/api-under-test.js";
import { runSeed, seededRandom, startKillableLedger, type KillableLedger, type Random } from "./support.js";

const REQUESTS = Number(process.env.RELIABILITY_FUZZ_REQUESTS ?? 4000);
const CONCURRENCY = 8;

const ROUTES = [
  "attestations",
  "agents",
  "health",
  "ping",
  "openapi.json",
  "keys",
  "",
  "attestations/",
  "agents/",
];
const PARAMETERS = [
  "limit",
  "cursor",
  "agent",
  "operator",
  "actionType",
  "privacy",
  "since",
  "until",
  "batch",
  "storedHash",
  "unknown",
  "LIMIT",
  "limit[]",
  "__proto__",
  "constructor",
];
const ODD_STRINGS = [
  "",
  "0",
  "-1",
  "101",
  "1e309",
  "NaN",
  "true",
  "false",
  "null",
  "undefined",
  "2026-11-21",
  "2026-13-45T99:99:99Z",
  "1763742000",
  "99999999999999999999999",
  "ToolCall",
  "Decision",
  "toolcall",
  "%00",
  "%FF%FE",
  "%",
  "%zz",
  "../../etc/passwd",
  "' OR 1=1 --",
  "😀",
  "\u0000",
  "a".repeat(64),
  "f".repeat(64),
  "eyJ4IjoxfQ",
  "eyJzIjotMSwiaWQiOiJ4In0",
  "====",
];
const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const PRINTABLE = Array.from({ length: 95 }, (_, index) => String.fromCharCode(32 + index)).join("");
const TOKEN = "abcdefghijklmnopqrstuvwxyz0123456789-_";

function randomText(random: Random, alphabet: string, min: number, max: number): string {
  const length = random.int(min, max);
  let text = "";
  for (let index = 0; index < length; index++) text += alphabet[random.int(0, alphabet.length - 1)];
  return text;
}

/** Something for a path segment or a parameter value: valid-looking, odd, random bytes, or huge. */
function randomValue(random: Random, known: readonly string[]): string {
  const kind = random.int(0, 9);
  if (kind <= 2 && known.length > 0) return encodeURIComponent(random.pick(known));
  if (kind === 3) return encodeURIComponent(random.pick(ODD_STRINGS));
  if (kind === 4) return random.pick(ODD_STRINGS.slice(17, 23));
  if (kind === 5) return randomText(random, BASE58, 30, 50);
  if (kind === 6) return Buffer.from(random.bytes(random.int(1, 80))).toString("base64url");
  if (kind === 7) return encodeURIComponent(randomText(random, PRINTABLE, 0, 40));
  if (kind === 8)
    return random.chance(0.5) ? "9".repeat(random.int(20, 400)) : randomText(random, "ab%", 1, 200);
  // Huge, yet within the HTTP header limit, so that the application (not the parser) answers.
  return randomText(random, BASE58, 1_000, 6_000);
}

type Outcome = { status: number; contentType: string; body: string; method: string; url: string };

describe("REST API fuzz", { timeout: 600_000 }, () => {
  let database: TestDatabase;
  let api: ApiUnderTest;
  let ledger: KillableLedger;
  const known: string[] = [];
  /** Errors answered by the HTTP framework before the application (bad URL encoding, long params, huge headers). */
  const frameworkAnswers: Outcome[] = [];

  before(async () => {
    database = await openTestDatabase("sqlite");
    const agent = await seedAgent(database.db);
    const rows = Array.from({ length: 60 }, (_, index) =>
      buildAttestation({
        agent: agent.agent,
        operator: agent.operator,
        slot: 100 + index,
        timestamp: 1_763_700_000 + index,
      }),
    );
    await seedAttestations(database.db, rows);
    // A healthy deployment: a live ledger, and an indexer that has just recorded its progress.
    ledger = await startKillableLedger();
    await setIndexerState(database.db, {
      [IndexerStateKey.IndexedSlot]: Number(await ledger.rpc.getSlot().send()),
      [IndexerStateKey.HeartbeatAt]: Date.now(),
    });
    api = await startApiUnderTest(database, {
      rpcUrl: ledger.rpcUrl,
      rateLimitPerMinute: 100_000_000,
      health: { staleAfterSeconds: 3_600, maxLagSlots: 1_000_000 },
    });
    known.push(
      agent.agent,
      agent.operator,
      randomAddress(),
      ...rows.slice(0, 5).flatMap((row) => [row.id, row.stored_hash]),
    );
    const page = (await api.get("/attestations?limit=3")).body as { pagination: { nextCursor: string } };
    known.push(page.pagination.nextCursor);
  });

  after(async () => {
    await api?.close();
    await database?.dispose();
    await ledger?.dispose();
  });

  it(`answers ${REQUESTS} random requests without a 5xx, every error a problem document with a code`, async (t) => {
    const seed = runSeed();
    const random = seededRandom(seed);
    t.diagnostic(`seed ${seed} (RELIABILITY_SEED=${seed} replays these requests)`);
    console.log(`# REST API fuzz seed ${seed}`);

    // Given requests generated up front from the seed (so that concurrency does not change them)
    const requests = Array.from({ length: REQUESTS }, () => {
      const segments = [random.pick(ROUTES)];
      if (random.chance(0.4)) segments.push(randomValue(random, known));
      if (random.chance(0.1)) segments.push(randomValue(random, known));
      const query = Array.from({ length: random.int(0, 4) }, () => {
        const name = random.chance(0.85) ? random.pick(PARAMETERS) : randomValue(random, []);
        return random.chance(0.1) ? name : `${name}=${randomValue(random, known)}`;
      }).join("&");
      const headers: Record<string, string> = {};
      const keyKind = random.int(0, 9);
      if (keyKind <= 3) headers.authorization = `Bearer ${api.apiKey}`;
      else if (keyKind === 4) headers["x-api-key"] = api.apiKey;
      else if (keyKind === 5) headers.authorization = `Bearer abas_${randomText(random, BASE58, 32, 44)}`;
      else if (keyKind === 6) headers.authorization = randomText(random, PRINTABLE.trim(), 0, 300);
      else if (keyKind === 7) {
        headers.authorization = `Bearer ${api.apiKey}`;
        headers["x-api-key"] = `abas_${randomText(random, BASE58, 10, 50)}`;
      } else if (keyKind === 8) headers["x-api-key"] = randomText(random, PRINTABLE.trim(), 1, 4_000);
      for (let extra = random.int(0, 3); extra > 0; extra--) {
        const name = random.pick([
          "accept",
          "accept-encoding",
          "content-type",
          "if-none-match",
          "x-request-id",
          "x-forwarded-for",
          "origin",
          "range",
          `x-${randomText(random, TOKEN, 1, 20)}`,
        ]);
        headers[name] = random.chance(0.1)
          ? randomText(random, PRINTABLE.trim(), 2_000, 6_000)
          : randomText(random, PRINTABLE.trim(), 0, 60);
      }
      const method = random.chance(0.85)
        ? "GET"
        : random.pick(["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"]);
      const body =
        method === "POST" || method === "PUT" || method === "PATCH"
          ? randomText(random, PRINTABLE, 0, 2_000)
          : undefined;
      const path = segments.join("/");
      return {
        method,
        url: `${api.baseUrl}/api/v1/${path}${query === "" ? "" : `?${query}`}`,
        headers,
        body,
      };
    });

    // When they are sent, a few at a time
    const started = Date.now();
    const outcomes: Outcome[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < requests.length) {
        const request = requests[next++]!;
        const response = await fetch(request.url, {
          method: request.method,
          headers: request.headers,
          ...(request.body === undefined ? {} : { body: request.body }),
        });
        outcomes.push({
          status: response.status,
          contentType: response.headers.get("content-type") ?? "",
          body: await response.text(),
          method: request.method,
          url: request.url.slice(0, 300),
        });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const durationMs = Date.now() - started;

    // Then no 5xx, and each error is a problem document carrying a numeric code
    const byStatus = new Map<number, number>();
    const codes = new Map<string, number>();
    const bad: Outcome[] = [];
    for (const outcome of outcomes) {
      byStatus.set(outcome.status, (byStatus.get(outcome.status) ?? 0) + 1);
      if (outcome.status >= 500) {
        bad.push(outcome);
        continue;
      }
      if (outcome.status < 400 || outcome.method === "HEAD") continue;
      let code: unknown;
      try {
        code = (JSON.parse(outcome.body) as { code?: unknown; name?: unknown }).code;
      } catch {
        code = undefined;
      }
      if (!outcome.contentType.startsWith("application/problem+json") || typeof code !== "number") {
        if (outcome.body.includes('"code":"FST_ERR_') || outcome.status === 431)
          frameworkAnswers.push(outcome);
        else bad.push(outcome);
        continue;
      }
      codes.set(String(code), (codes.get(String(code)) ?? 0) + 1);
    }
    const badStatuses = new Map<string, number>();
    for (const outcome of bad) {
      const key = `${outcome.status} ${outcome.contentType}`;
      badStatuses.set(key, (badStatuses.get(key) ?? 0) + 1);
    }
    for (const outcome of frameworkAnswers) {
      const key =
        `${outcome.status} ${outcome.contentType} ${/"code":"(FST_ERR_\w+)"/.exec(outcome.body)?.[1] ?? ""}`.trim();
      badStatuses.set(key, (badStatuses.get(key) ?? 0) + 1);
    }
    if (badStatuses.size > 0)
      t.diagnostic(
        `answers that were not problem documents: ${JSON.stringify(Object.fromEntries(badStatuses))}`,
      );
    const summary =
      `${outcomes.length} requests in ${(durationMs / 1000).toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...byStatus].sort()))}; ` +
      `problem codes ${JSON.stringify(Object.fromEntries([...codes].sort()))}`;
    t.diagnostic(summary);
    assert.equal(outcomes.length, REQUESTS);
    assert.deepEqual(
      bad.slice(0, 5).map((outcome) => ({ ...outcome, body: outcome.body.slice(0, 300) })),
      [],
      `${bad.length} bad answers (seed ${seed}); ${summary}`,
    );
  });

  it("answers the framework's own refusals (bad URL encoding, too long params, huge headers) as problem documents too", () => {
    assert.deepEqual(
      frameworkAnswers.slice(0, 3).map((outcome) => ({ ...outcome, body: outcome.body.slice(0, 200) })),
      [],
      `${frameworkAnswers.length} answers from the framework were not problem documents`,
    );
  });
});
