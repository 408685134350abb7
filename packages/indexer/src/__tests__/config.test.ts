import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ConfigError, deriveWebSocketUrl, parseIndexerConfig } from "../config.js";

describe("parseIndexerConfig", () => {
  it("defaults to the local ledger and a SQLite file in .data", () => {
    assert.deepEqual(parseIndexerConfig({}), {
      rpcUrl: "http://127.0.0.1:8899",
      wsUrl: "ws://127.0.0.1:8900/",
      programId: "5RM2JWdhiGGfkBnB16BpZiJoXa79E1rW31pB4YWBZbkN",
      databaseUrl: ".data/abas.sqlite",
      pollIntervalMs: 1000,
      leaseMs: 10_000,
      commitment: "finalized",
      logLevel: "info",
    });
  });

  it("takes DATABASE_URL over DATA_DIR, and empty variables as unset", () => {
    const config = parseIndexerConfig({
      DATABASE_URL: "postgres://indexer@db:5432/abas",
      DATA_DIR: "/var/lib/abas",
      POLL_INTERVAL_MS: "250",
      LOG_LEVEL: "DEBUG",
      WS_URL: "",
    });
    assert.equal(config.databaseUrl, "postgres://indexer@db:5432/abas");
    assert.equal(config.pollIntervalMs, 250);
    assert.equal(config.logLevel, "debug");
    assert.equal(parseIndexerConfig({ DATA_DIR: "/var/lib/abas" }).databaseUrl, "/var/lib/abas/abas.sqlite");
  });

  it("names every bad variable", () => {
    assert.throws(
      () =>
        parseIndexerConfig({ RPC_URL: "ftp://x", PROGRAM_ID: "not-an-address", POLL_INTERVAL_MS: "soon" }),
      (error: unknown) =>
        error instanceof ConfigError &&
        /RPC_URL/.test(error.message) &&
        /PROGRAM_ID must be a base58 Solana address/.test(error.message) &&
        /POLL_INTERVAL_MS/.test(error.message),
    );
  });
});

describe("deriveWebSocketUrl", () => {
  it("adds one to an explicit port and keeps a default one, like Solana's tools", () => {
    assert.equal(deriveWebSocketUrl("http://127.0.0.1:8899"), "ws://127.0.0.1:8900/");
    assert.equal(deriveWebSocketUrl("https://api.devnet.solana.com"), "wss://api.devnet.solana.com/");
  });
});
