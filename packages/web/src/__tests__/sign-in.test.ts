/**
 * Sign-In With Solana and the API-key routes, server side, without a browser: the web plugin on a
 * Fastify app of its own (with a clock the tests move), against a fresh database of each dialect
 * (SQLite always, PostgreSQL when DATABASE_URL is set) and the real local ledger for the chain id.
 * Every refusal says what is wrong.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { createApiKey, listApiKeys, MAX_API_KEYS_PER_OWNER, revokeApiKey } from "@abas/db";
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from "@abas/db/testing";
import { loadServiceConfig, startService, type RunningService } from "@abas/service";
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from "fastify";

import { webPlugin } from "../index.js";
import { generateTestKey, type TestKey } from "./support/keys.js";

const HOST = "abas.test:8080";
const STATEMENT =
  "Sign in to ABAS to manage this wallet's API keys. Signing costs nothing and sends no transaction.";

let service: RunningService;
let dataDir: string;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "abas-web-sign-in-"));
  service = await startService(
    loadServiceConfig({
      DATA_DIR: dataDir,
      PORT: "0",
      LEDGER_RPC_PORT: "0",
      LEDGER_WS_PORT: "0",
      LOG_LEVEL: "silent",
    }),
  );
});
after(async () => {
  await service?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Challenge {
  domain: string;
  statement: string;
  uri: string;
  version: string;
  chainId: string;
  nonce: string;
  issuedAt: string;
  expirationTime: string;
}

/** The message as a wallet writes it (Wallet Standard signIn format), from a challenge. */
function messageFor(challenge: Challenge, address: string, changes: Partial<Challenge> = {}): string {
  const c = { ...challenge, ...changes };
  return (
    `${c.domain} wants you to sign in with your Solana account:\n${address}\n\n${c.statement}\n\n` +
    `URI: ${c.uri}\nVersion: ${c.version}\nChain ID: ${c.chainId}\nNonce: ${c.nonce}\n` +
    `Issued At: ${c.issuedAt}\nExpiration Time: ${c.expirationTime}`
  );
}

class Browser {
  readonly cookies = new Map<string, string>();
  csrfToken = "";

  constructor(private readonly app: FastifyInstance) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }

  remember(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of response.cookies as { name: string; value: string; maxAge?: number }[]) {
      if (cookie.value === "" || cookie.maxAge === 0) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    const meta = /<meta name="csrf-token" content="([^"]+)"/.exec(response.body);
    if (meta) this.csrfToken = meta[1]!;
    return response;
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    return this.remember(
      await this.app.inject({ method: "GET", url, headers: { host: HOST, cookie: this.cookieHeader } }),
    );
  }

  async post(
    url: string,
    body: unknown = {},
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    return this.remember(
      await this.app.inject({
        method: "POST",
        url,
        payload: body as Record<string, unknown>,
        headers: { host: HOST, cookie: this.cookieHeader, "x-csrf-token": this.csrfToken, ...headers },
      }),
    );
  }

  async challenge(): Promise<Challenge> {
    await this.get("/app/api-keys");
    const response = await this.post("/app/auth/challenge");
    assert.equal(response.statusCode, 200, response.body);
    return response.json<Challenge>();
  }

  async verify(key: TestKey, message: string, signer: TestKey = key): Promise<LightMyRequestResponse> {
    const bytes = new TextEncoder().encode(message);
    return this.post("/app/auth/verify", {
      address: key.address,
      message: Buffer.from(bytes).toString("base64"),
      signature: Buffer.from(signer.sign(bytes)).toString("base64"),
    });
  }

  async signIn(key: TestKey): Promise<void> {
    const response = await this.verify(key, messageFor(await this.challenge(), key.address));
    assert.equal(response.statusCode, 200, response.body);
    await this.get("/app/api-keys");
  }
}

/** The web plugin on an app of its own, for the site at HOST. */
async function webApp(
  database: TestDatabase,
  options: { now?: () => number } = {},
): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(webPlugin, {
    db: database.db,
    dialect: database.dialect,
    rpcUrl: service.rpcUrl,
    publicUrl: `http://${HOST}`,
    // Every test browser asks from one address; the limits have their own test.
    signInChallengesPerMinute: { perClient: 1_000, perServer: 1_000 },
    ...options,
  });
  await app.ready();
  return app;
}

function assertRefused(
  response: LightMyRequestResponse,
  statusCode: number,
  code: string,
  message: RegExp,
): void {
  assert.equal(response.statusCode, statusCode, response.body);
  const body = response.json<{ message: string; code: string }>();
  assert.equal(body.code, code);
  assert.match(body.message, message);
}

for (const target of testDatabaseTargets()) {
  describe(`Sign-In With Solana (${target.label})`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let app: FastifyInstance;
    let now = Date.parse("2026-11-21T12:00:00Z");

    before(async () => {
      database = await openTestDatabase(target.dialect);
      app = await webApp(database, { now: () => now });
    });
    after(async () => {
      await app?.close();
      await database?.dispose();
    });

    test("the challenge names this site, the page, version 1, the ledger's chain and a fresh nonce", async () => {
      const challenge = await new Browser(app).challenge();
      assert.equal(challenge.domain, HOST);
      assert.equal(challenge.uri, `http://${HOST}/app/api-keys`);
      assert.equal(challenge.version, "1");
      assert.equal(challenge.chainId, "solana:localnet");
      assert.equal(challenge.statement, STATEMENT);
      assert.match(challenge.nonce, /^[0-9a-f]{32}$/);
      assert.equal(challenge.issuedAt, new Date(now).toISOString());
      assert.equal(challenge.expirationTime, new Date(now + 5 * 60_000).toISOString());
      assert.notEqual((await new Browser(app).challenge()).nonce, challenge.nonce);
    });

    test("a wallet that signs the message is signed in with an HttpOnly, SameSite=Strict session", async () => {
      // Given a browser with a challenge, and a wallet key
      const browser = new Browser(app);
      const wallet = generateTestKey();
      const challenge = await browser.challenge();

      // When the wallet signs the message and the browser sends it
      const response = await browser.verify(wallet, messageFor(challenge, wallet.address));

      // Then it is signed in as that wallet
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json<{ address: string }>().address, wallet.address);
      const session = response.cookies.find((cookie) => cookie.name === "abas_session");
      assert.ok(session, "a session cookie is set");
      assert.equal(session.httpOnly, true);
      assert.equal(session.sameSite, "Strict");
      assert.equal(session.path, "/app");
      assert.equal(session.secure, undefined, "not Secure over plain http");
      // And the API-keys page shows the wallet's view
      const page = await browser.get("/app/api-keys");
      assert.match(page.body, new RegExp(`data-signed-in-address>${wallet.address}<`));
    });

    test("a wrong signature is refused", async () => {
      const browser = new Browser(app);
      const wallet = generateTestKey();
      const message = messageFor(await browser.challenge(), wallet.address);
      // When another key signs the message that names the wallet
      const response = await browser.verify(wallet, message, generateTestKey());
      assertRefused(response, 401, "bad-signature", /signature does not verify/);
    });

    test("a nonce is redeemed once: replaying the signed message is refused", async () => {
      // Given a sign-in that succeeded, and a copy of everything it sent: cookie, token, message, signature
      const browser = new Browser(app);
      const wallet = generateTestKey();
      const message = messageFor(await browser.challenge(), wallet.address);
      const eavesdropper = new Browser(app);
      browser.cookies.forEach((value, name) => eavesdropper.cookies.set(name, value));
      eavesdropper.csrfToken = browser.csrfToken;
      assert.equal((await browser.verify(wallet, message)).statusCode, 200);

      // When it is all sent again
      const replay = await eavesdropper.verify(wallet, message);

      // Then the used nonce is refused
      assertRefused(replay, 401, "used-nonce", /already used/);
    });

    test("an expired nonce is refused", async () => {
      const browser = new Browser(app);
      const wallet = generateTestKey();
      const message = messageFor(await browser.challenge(), wallet.address);
      // When the message arrives after its expiration time
      now += 5 * 60_000 + 1;
      const response = await browser.verify(wallet, message);
      assertRefused(response, 401, "expired-nonce", /expired at/);
    });

    test("a message for another domain is refused", async () => {
      const browser = new Browser(app);
      const wallet = generateTestKey();
      const challenge = await browser.challenge();
      // When the wallet signed a message naming another site (a phishing page relaying our nonce)
      const response = await browser.verify(
        wallet,
        messageFor(challenge, wallet.address, { domain: "evil.example" }),
      );
      assertRefused(response, 401, "wrong-domain", /signs in to evil\.example, not to abas\.test:8080/);
    });

    test("other wrong fields are refused, each by name", async () => {
      const wallet = generateTestKey();
      const cases: [Partial<Challenge>, string, RegExp][] = [
        [
          { chainId: "solana:mainnet" },
          "wrong-chain",
          /chain ID is "solana:mainnet"; expected "solana:localnet"/,
        ],
        [{ uri: "http://abas.test:8080/elsewhere" }, "wrong-uri", /URI/],
        [{ version: "2" }, "wrong-version", /version/],
        [{ statement: "Give me everything" }, "wrong-statement", /statement/],
        [{ nonce: "0".repeat(32) }, "unknown-nonce", /did not issue/],
        [{ issuedAt: "2020-01-01T00:00:00.000Z" }, "altered-message", /differs from the challenge/],
      ];
      for (const [changes, code, message] of cases) {
        const browser = new Browser(app);
        const response = await browser.verify(
          wallet,
          messageFor(await browser.challenge(), wallet.address, changes),
        );
        assertRefused(response, 401, code, message);
      }
    });

    test("a nonce only works in the browser it was issued to", async () => {
      const wallet = generateTestKey();
      const message = messageFor(await new Browser(app).challenge(), wallet.address);
      // When another browser (another sign-in cookie) presents it
      const other = new Browser(app);
      await other.get("/app/api-keys");
      const response = await other.verify(wallet, message);
      assertRefused(response, 401, "nonce-from-another-browser", /another browser/);
    });

    test("a message that is not Sign-In With Solana text is refused", async () => {
      const browser = new Browser(app);
      await browser.challenge();
      const wallet = generateTestKey();
      const response = await browser.verify(wallet, "please sign this");
      assertRefused(response, 400, "unreadable-message", /not a Sign-In With Solana message/);
    });
  });

  describe(`CSRF protection and API keys (${target.label})`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let app: FastifyInstance;

    before(async () => {
      database = await openTestDatabase(target.dialect);
      app = await webApp(database);
    });
    after(async () => {
      await app?.close();
      await database?.dispose();
    });

    test("a state-changing request without the CSRF header is refused with 403", async () => {
      // Given a signed-in browser
      const browser = new Browser(app);
      await browser.signIn(generateTestKey());

      // When it creates a key without the X-CSRF-Token header, or with a wrong one
      const missing = await browser.post("/app/api-keys", { name: "ci" }, { "x-csrf-token": "" });
      const wrong = await browser.post("/app/api-keys", { name: "ci" }, { "x-csrf-token": "forged" });
      const signOut = await browser.post("/app/auth/sign-out", {}, { "x-csrf-token": "" });

      // Then each is refused
      assertRefused(missing, 403, "csrf-missing", /Missing CSRF token/);
      assertRefused(wrong, 403, "csrf-invalid", /Invalid CSRF token/);
      assertRefused(signOut, 403, "csrf-missing", /Missing CSRF token/);
      // And a request from another site is refused even with the token
      const crossSite = await browser.post(
        "/app/api-keys",
        { name: "ci" },
        { origin: "https://evil.example" },
      );
      assertRefused(crossSite, 403, "cross-site", /evil\.example/);
    });

    test("the sign-in requests need the page's token too", async () => {
      const browser = new Browser(app);
      await browser.get("/app/api-keys");
      const response = await browser.post("/app/auth/challenge", {}, { "x-csrf-token": "" });
      assertRefused(response, 403, "csrf-missing", /Missing CSRF token/);
    });

    test("with the token: create a key owned by the wallet, list it, revoke it; others cannot", async () => {
      // Given two signed-in wallets
      const alice = new Browser(app);
      const aliceKey = generateTestKey();
      await alice.signIn(aliceKey);
      const mallory = new Browser(app);
      await mallory.signIn(generateTestKey());

      // When Alice creates a key
      const created = await alice.post("/app/api-keys", { name: "ci pipeline" });
      assert.equal(created.statusCode, 201, created.body);
      const { key, record } = created.json<{
        key: string;
        record: { id: string; owner: string; name: string };
      }>();
      assert.match(key, /^abas_/);
      assert.equal(record.owner, aliceKey.address);
      assert.equal(created.headers["cache-control"], "no-store");

      // Then her table lists it (by prefix, never the key) and Mallory's does not
      const table = await alice.get("/app/api-keys/table");
      assert.match(table.body, /ci pipeline/);
      assert.doesNotMatch(table.body, new RegExp(key));
      assert.doesNotMatch((await mallory.get("/app/api-keys/table")).body, /ci pipeline/);

      // And Mallory cannot revoke it, Alice can, once
      assertRefused(
        await mallory.post(`/app/api-keys/${record.id}/revoke`),
        404,
        "unknown-key",
        /no API key/,
      );
      assert.equal((await alice.post(`/app/api-keys/${record.id}/revoke`)).statusCode, 200);
      assertRefused(
        await alice.post(`/app/api-keys/${record.id}/revoke`),
        409,
        "already-revoked",
        /already revoked/,
      );
      // And a bad name is refused with the reason
      assertRefused(await alice.post("/app/api-keys", { name: "  " }), 400, "invalid-name", /empty/);
    });

    test("an owner holds at most MAX_API_KEYS_PER_OWNER keys, revoked ones included: the next is refused with 409", async () => {
      // Given a wallet that already holds one key fewer than the limit, one of them revoked
      const browser = new Browser(app);
      const wallet = generateTestKey();
      await browser.signIn(wallet);
      for (let i = 0; i < MAX_API_KEYS_PER_OWNER - 1; i++) {
        await createApiKey(database.db, { name: `key ${i}`, owner: wallet.address });
      }
      const [oldest] = await listApiKeys(database.db, { owner: wallet.address });
      await revokeApiKey(database.db, oldest!.id);

      // When it creates one more, then another
      const last = await browser.post("/app/api-keys", { name: "the last one" });
      const refused = await browser.post("/app/api-keys", { name: "one too many" });

      // Then the first is created and the second refused, naming the limit
      assert.equal(last.statusCode, 201, last.body);
      assertRefused(refused, 409, "too-many-keys", /already has 1000 API keys/);
      assert.equal(
        (await listApiKeys(database.db, { owner: wallet.address })).length,
        MAX_API_KEYS_PER_OWNER,
      );
    });

    test("signed out, the key routes answer 401 and sign-out ends the session", async () => {
      const browser = new Browser(app);
      await browser.signIn(generateTestKey());
      assert.equal((await browser.post("/app/auth/sign-out")).statusCode, 200);
      assertRefused(await browser.post("/app/api-keys", { name: "x" }), 401, "signed-out", /not signed in/);
    });
  });
}

describe("behind https", () => {
  test("cookies are Secure and the domain is the public URL's", async () => {
    const database = await openTestDatabase("sqlite");
    const app = Fastify();
    await app.register(webPlugin, {
      db: database.db,
      dialect: database.dialect,
      rpcUrl: service.rpcUrl,
      publicUrl: "https://abas.example.com",
    });
    try {
      const browser = new Browser(app);
      const page = await browser.get("/app/api-keys");
      assert.equal(page.cookies.find((cookie) => cookie.name === "abas_sign_in")?.secure, true);
      const challenge = (
        await browser.post("/app/auth/challenge", {}, { origin: "https://abas.example.com" })
      ).json<Challenge>();
      assert.equal(challenge.domain, "abas.example.com");
      assert.equal(challenge.uri, "https://abas.example.com/app/api-keys");
      const wallet = generateTestKey();
      const response = await browser.verify(wallet, messageFor(challenge, wallet.address));
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.cookies.find((cookie) => cookie.name === "abas_session")?.secure, true);
    } finally {
      await app.close();
      await database.dispose();
    }
  });
});
