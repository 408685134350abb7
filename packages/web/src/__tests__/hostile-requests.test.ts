/**
 * The web app and share link under hostile requests, over real HTTP against `npm start`'s stack
 * (no PUBLIC_URL, on loopback): a forged Host header (a phishing relay), a flood of sign-in
 * challenges, a sign-in cookie the server never issued, a flood of receipt checks, and a share
 * link while the ledger hangs.
 */
import assert from "node:assert/strict";
import { request } from "node:http";
import { createServer, type Server, type Socket } from "node:net";
import { after, before, describe, test } from "node:test";

import { buildAttestation, openTestDatabase, seedAttestations, type TestDatabase } from "@abas/db/testing";
import Fastify, { type FastifyInstance } from "fastify";

import { webPlugin, type WebPluginOptions } from "../index.js";
import { startSeededStack, type SeededStack } from "./support/stack.js";

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  readonly cookies: string[];
}

/** A request with exactly these headers (fetch would not let a test forge Host). */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; localAddress?: string } = {},
) {
  return new Promise<Reply>((resolve, reject) => {
    const outgoing = request(
      url,
      { method: options.method ?? "GET", headers: options.headers, localAddress: options.localAddress },
      (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text,
            cookies: (response.headers["set-cookie"] ?? []).map((cookie) => cookie.split(";")[0]!),
          }),
        );
      },
    );
    outgoing.on("error", reject);
    outgoing.end(options.body);
  });
}

/** The page's sign-in cookie and CSRF token, as a browser on `host` gets them. */
async function signInPage(origin: string, host: string): Promise<{ cookie: string; token: string }> {
  const page = await send(`${origin}/app/api-keys`, { headers: { host } });
  assert.equal(page.status, 200, page.text);
  const cookie = page.cookies.find((value) => value.startsWith("abas_sign_in="))!;
  const token = /<meta name="csrf-token" content="([^"]+)"/.exec(page.text)![1]!;
  return { cookie, token };
}

function challenge(origin: string, host: string, cookie: string, token: string, localAddress?: string) {
  return send(`${origin}/app/auth/challenge`, {
    method: "POST",
    headers: { host, cookie, "x-csrf-token": token, "content-type": "application/json" },
    body: "{}",
    ...(localAddress === undefined ? {} : { localAddress }),
  });
}

let stack: SeededStack;
before(async () => {
  stack = await startSeededStack();
});
after(async () => stack?.stop());

describe("a forged Host header without PUBLIC_URL", () => {
  test("a sign-in challenge is never issued for another domain (a phishing relay)", async () => {
    // Given a page fetched and a challenge asked through a proxy that says Host: evil.example
    const page = await send(`${stack.origin}/app/api-keys`, { headers: { host: "evil.example" } });
    const relayed = await challenge(stack.origin, "evil.example", "abas_sign_in=x", "x");
    // Then both are refused: this server answers for its own loopback address only
    for (const reply of [page, relayed]) {
      assert.equal(reply.status, 421, reply.text);
      assert.doesNotMatch(reply.text, /wants you to sign in|"domain"/);
    }
    assert.equal(JSON.parse(relayed.text).code, "unknown-host");
    assert.match(JSON.parse(relayed.text).message, /evil\.example/);
  });

  test("the site's own loopback names still sign in, each naming itself", async () => {
    const port = new URL(stack.origin).port;
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const { cookie, token } = await signInPage(stack.origin, host);
      const reply = await challenge(stack.origin, host, cookie, token);
      assert.equal(reply.status, 200, reply.text);
      const fields = JSON.parse(reply.text) as { domain: string; uri: string };
      assert.equal(fields.domain, host);
      assert.equal(fields.uri, `http://${host}/app/api-keys`);
    }
    // A loopback name with another port is not this site either
    const otherPort = await send(`${stack.origin}/app/api-keys`, { headers: { host: "127.0.0.1:1" } });
    assert.equal(otherPort.status, 421);
  });

  test("the share link never puts the forged Host into its icon or links", async () => {
    const url = `${stack.origin}/api/actions/verify?tx=${stack.plain.txSignature}`;
    const forged = await send(url, { headers: { host: "evil.example" } });
    assert.equal(forged.status, 421, forged.text);
    assert.doesNotMatch(forged.text, /evil\.example\/api/);
    // The refusal is named and readable by a blink client: it carries the Actions headers too
    assert.equal((JSON.parse(forged.text) as { code: string }).code, "unknown-host");
    assert.equal(forged.headers["access-control-allow-origin"], "*");
    assert.equal(forged.headers["x-action-version"], "2.4");
    const genuine = await send(url);
    const action = JSON.parse(genuine.text) as { icon: string };
    assert.ok(action.icon.startsWith(`${stack.origin}/api/actions/verify/card.png?`), action.icon);
  });
});

describe("requests refused before their route", () => {
  test("get a named code: an unknown page, a body of another type, a body too large", async () => {
    const refusals: Array<[string, Parameters<typeof send>[1], number, string]> = [
      ["/app/no-such-page", { headers: { accept: "application/json" }, method: "POST" }, 404, "not-found"],
      [
        "/app/verify",
        { method: "POST", headers: { "content-type": "multipart/form-data; boundary=x" }, body: "--x--" },
        415,
        "unsupported-media-type",
      ],
      [
        "/app/receipts/verify",
        // (refused on its Content-Length, before a byte of it is read)
        { method: "POST", headers: { "content-type": "application/json", "content-length": "13000000" } },
        413,
        "body-too-large",
      ],
    ];
    for (const [path, options, status, code] of refusals) {
      const reply = await send(`${stack.origin}${path}`, options);
      assert.equal(reply.status, status, `${path}: ${reply.text}`);
      assert.equal((JSON.parse(reply.text) as { code: string }).code, code, path);
    }
  });

  test("HEAD of a page answers its headers without a body", async () => {
    const reply = await send(`${stack.origin}/app`, { method: "HEAD" });
    assert.equal(reply.status, 200);
    assert.match(String(reply.headers["content-type"]), /^text\/html/);
    assert.equal(reply.text, "");
  });
});

describe("the sign-in cookie", () => {
  test("a value the server never issued is refused, even when the header repeats it", async () => {
    const host = new URL(stack.origin).host;
    const forged = await challenge(
      stack.origin,
      host,
      "abas_sign_in=chosen-by-the-attacker",
      "chosen-by-the-attacker",
    );
    assert.equal(forged.status, 403, forged.text);
    assert.equal(JSON.parse(forged.text).code, "csrf-invalid");
  });
});

describe("a flood of sign-in challenges", () => {
  test("one client gets 10 a minute, then 429 with Retry-After", async () => {
    // From an address of its own (the other tests ask from 127.0.0.1)
    const host = new URL(stack.origin).host;
    const { cookie, token } = await signInPage(stack.origin, host);
    const statuses: number[] = [];
    let refused: Reply | undefined;
    for (let i = 0; i < 30; i++) {
      const reply = await challenge(stack.origin, host, cookie, token, "127.0.0.5");
      statuses.push(reply.status);
      if (reply.status === 429) refused = reply;
    }
    assert.deepEqual(statuses, [...Array<number>(10).fill(200), ...Array<number>(20).fill(429)]);
    assert.equal(JSON.parse(refused!.text).code, "rate-limited");
    const retryAfter = Number(refused!.headers["retry-after"]);
    assert.ok(retryAfter >= 1 && retryAfter <= 6, `Retry-After ${retryAfter}`);
  });
});

/** The web app on a database of its own, with `limits`, answering `app.inject` only; closed after `use`. */
async function withWebApp(
  limits: Pick<
    WebPluginOptions,
    "signInChallengesPerMinute" | "receiptChecksPerMinute" | "receiptCardsPerMinute"
  >,
  use: (app: FastifyInstance, database: TestDatabase) => Promise<void>,
): Promise<void> {
  const database = await openTestDatabase("sqlite");
  const app = Fastify();
  try {
    await app.register(webPlugin, {
      db: database.db,
      dialect: database.dialect,
      rpcUrl: stack.rpcUrl,
      publicUrl: "http://abas.test",
      ...limits,
    });
    await use(app, database);
  } finally {
    await app.close();
    await database.dispose();
  }
}

describe("a flood of sign-in challenges from many clients", () => {
  test("the process as a whole stops issuing nonces past its own limit", async () => {
    await withWebApp(
      { signInChallengesPerMinute: { perClient: 100, perServer: 3 } },
      async (app, database) => {
        const statuses: number[] = [];
        for (let client = 1; client <= 5; client++) {
          const remoteAddress = `10.0.0.${client}`;
          const page = await app.inject({ method: "GET", url: "/app/api-keys", remoteAddress });
          const cookie = page.cookies.find((entry) => entry.name === "abas_sign_in")!.value;
          const reply = await app.inject({
            method: "POST",
            url: "/app/auth/challenge",
            remoteAddress,
            headers: { cookie: `abas_sign_in=${cookie}`, "x-csrf-token": cookie },
            payload: {},
          });
          statuses.push(reply.statusCode);
        }
        assert.deepEqual(statuses, [200, 200, 200, 429, 429]);
        const rows = await database.db.selectFrom("web_sign_in_nonces").selectAll().execute();
        assert.equal(rows.length, 3);
      },
    );
  });
});

describe("a flood of receipt checks", () => {
  test("past a client's allowance, and past the server's, checks get 429 with Retry-After", async () => {
    // Given the web app allowing 3 checks a minute per client and 5 per server
    await withWebApp({ receiptChecksPerMinute: { perClient: 3, perServer: 5 } }, async (app) => {
      // When one client asks 4 times, then two others 3 times in all
      const replies = [];
      for (const remoteAddress of [
        "10.0.1.1",
        "10.0.1.1",
        "10.0.1.1",
        "10.0.1.1",
        "10.0.1.2",
        "10.0.1.2",
        "10.0.1.3",
      ]) {
        replies.push(
          await app.inject({
            method: "POST",
            url: "/app/receipts/verify",
            remoteAddress,
            payload: { file: "not-a-receipt.json", content: "{}" },
          }),
        );
      }
      // Then the first client's 4th check is refused, without using the server's allowance, and
      // the server's 6th check overall is refused
      assert.deepEqual(
        replies.map((reply) => reply.statusCode),
        [200, 200, 200, 429, 200, 200, 429],
      );
      for (const refused of [replies[3]!, replies[6]!]) {
        assert.equal(JSON.parse(refused.body).code, "rate-limited");
        const retryAfter = Number(refused.headers["retry-after"]);
        assert.ok(retryAfter >= 1 && retryAfter <= 20, `Retry-After ${retryAfter}`);
      }
      // And an allowed check was answered: this file is not a receipt
      assert.equal(JSON.parse(replies[0]!.body).status, "failed");
    });
  });
});

describe("a flood of receipt cards", () => {
  test("made-up references share one card; cards drawn past a client's allowance, and past the server's, get 429 with Retry-After; drawn ones are still sent", async () => {
    // Given the web app allowing 2 cards drawn a minute per client and 3 per server, with 4
    // indexed attestations
    await withWebApp({ receiptCardsPerMinute: { perClient: 2, perServer: 3 } }, async (app, database) => {
      const records = [1, 2, 3, 4].map((n) =>
        buildAttestation({ slot: 100 + n, timestamp: 1_763_700_000 + n }),
      );
      await seedAttestations(database.db, records);
      const card = (tx: string, remoteAddress: string) =>
        app.inject({ method: "GET", url: `/api/actions/verify/card.png?tx=${tx}`, remoteAddress });

      // When one client asks for the cards of three well-formed signatures no attestation has
      const madeUp = [
        await card(`${"5".repeat(86)}2`, "10.0.2.9"),
        await card(`${"5".repeat(86)}3`, "10.0.2.9"),
        await card(`${"5".repeat(86)}4`, "10.0.2.9"),
      ];
      // Then each is the one "not found" card, drawn once
      assert.deepEqual(
        madeUp.map((reply) => reply.statusCode),
        [200, 200, 200],
      );
      assert.ok(madeUp.every((reply) => reply.rawPayload.equals(madeUp[0]!.rawPayload)));

      // When clients ask for the cards of the attestations (each a new card)
      const replies = [
        await card(records[0]!.tx_signature, "10.0.2.1"),
        await card(records[1]!.tx_signature, "10.0.2.1"),
        await card(records[2]!.tx_signature, "10.0.2.1"),
        await card(records[3]!.tx_signature, "10.0.2.2"),
      ];
      // Then the first client's third card is refused without using the server's allowance, and
      // the server's fourth card drawn is refused
      assert.deepEqual(
        replies.map((reply) => reply.statusCode),
        [200, 200, 429, 429],
      );
      for (const refused of [replies[2]!, replies[3]!]) {
        assert.equal(JSON.parse(refused.body).code, "rate-limited");
        assert.equal(refused.headers["access-control-allow-origin"], "*");
        const retryAfter = Number(refused.headers["retry-after"]);
        assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
      }
      // And a card already drawn is sent again without counting
      const again = await card(records[0]!.tx_signature, "10.0.2.1");
      assert.equal(again.statusCode, 200);
      assert.equal(again.headers["content-type"], "image/png");
    });
  });
});

describe("the share link while the ledger hangs", () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let hung: Server;
  const sockets = new Set<Socket>();
  before(async () => {
    // A ledger that accepts connections and never answers: a fault injected on purpose
    hung = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
    database = await openTestDatabase("sqlite");
    app = Fastify();
    await app.register(webPlugin, {
      db: database.db,
      dialect: database.dialect,
      rpcUrl: `http://127.0.0.1:${(hung.address() as { port: number }).port}`,
      publicUrl: "https://abas.example.com",
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
  });
  after(async () => {
    await app?.close();
    for (const socket of sockets) socket.destroy();
    hung?.close();
    await database?.dispose();
  });

  test("answers within 5 s that the ledger could not be checked", async () => {
    const record = buildAttestation({ slot: 10, timestamp: 1_763_700_000 });
    await seedAttestations(database.db, [record]);
    const started = Date.now();
    const reply = await send(
      `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/actions/verify?tx=${record.tx_signature}`,
    );
    const elapsed = Date.now() - started;
    assert.equal(reply.status, 200, reply.text);
    const action = JSON.parse(reply.text) as { label: string; description: string };
    assert.equal(action.label, "Ledger unreachable");
    assert.ok(elapsed < 5_000, `answered in ${elapsed} ms`);
  });

  test("the verify page answers 503 that the ledger could not be checked, within its 10 s", async () => {
    // Given an indexed attestation whose ledger never answers
    const record = buildAttestation({ slot: 11, timestamp: 1_763_700_100 });
    await seedAttestations(database.db, [record]);
    const started = Date.now();
    // When its hash is looked up on the verify page
    const response = await fetch(
      `http://127.0.0.1:${(app.server.address() as { port: number }).port}/app/verify`,
      {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ input: record.stored_hash }).toString(),
      },
    );
    // Then the page says so, and never "attested"
    const page = await response.text();
    assert.equal(response.status, 503, page);
    assert.match(page, /The ledger could not be checked/);
    assert.doesNotMatch(page, /data-result="attested"/);
    assert.ok(Date.now() - started < 15_000);
  });
});
