import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ConfigError, DEFAULT_API_URL, DEFAULT_RPC_URL, loadConfig } from "../config.js";
import { createLogger } from "../logger.js";

const KEY = "abas_CKSJsKj8eYcQ3n2wWqGkX9dPzT6rVbN4mLhF5uAsE7y";

describe("configuration from the environment", () => {
  it("defaults to the local stack that `npm start` runs, without an API key", () => {
    assert.deepEqual(loadConfig({}), {
      apiUrl: DEFAULT_API_URL,
      apiKey: undefined,
      rpcUrl: DEFAULT_RPC_URL,
      shownRpcUrl: DEFAULT_RPC_URL,
      programId: "5RM2JWdhiGGfkBnB16BpZiJoXa79E1rW31pB4YWBZbkN",
      logLevel: "info",
    });
  });

  it("takes every variable, trims it, and treats an empty value as unset", () => {
    const config = loadConfig({
      ABAS_API_URL: " https://abas.example.com/api/v1 ",
      ABAS_API_KEY: KEY,
      ABAS_RPC_URL: "https://api.devnet.solana.com",
      ABAS_PROGRAM_ID: "",
      LOG_LEVEL: "warn",
    });
    assert.deepEqual(config, {
      apiUrl: "https://abas.example.com/api/v1",
      apiKey: KEY,
      rpcUrl: "https://api.devnet.solana.com",
      shownRpcUrl: "https://api.devnet.solana.com",
      programId: "5RM2JWdhiGGfkBnB16BpZiJoXa79E1rW31pB4YWBZbkN",
      logLevel: "warn",
    });
    assert.equal(loadConfig({ ABAS_API_KEY: "" }).apiKey, undefined);
  });

  it("shows the ledger's address without what may hold a provider's key: user part, path, query", () => {
    for (const [url, shown] of [
      ["http://127.0.0.1:8899", "http://127.0.0.1:8899"],
      ["https://mainnet.helius-rpc.com/?api-key=secret", "https://mainnet.helius-rpc.com?[hidden]"],
      [
        "https://example.solana-mainnet.quiknode.pro/secret/",
        "https://example.solana-mainnet.quiknode.pro/[hidden]",
      ],
      [
        "https://user:secret@rpc.example.com:8443/v1?token=secret",
        "https://rpc.example.com:8443/[hidden]?[hidden]",
      ],
    ] as const) {
      assert.equal(loadConfig({ ABAS_RPC_URL: url }).shownRpcUrl, shown, url);
    }
  });

  it("names every invalid variable, and never repeats a key back", () => {
    assert.throws(
      () =>
        loadConfig({
          ABAS_API_URL: "ftp://example.com",
          ABAS_API_KEY: "abas_tooShort",
          ABAS_PROGRAM_ID: "not-base58!",
          LOG_LEVEL: "verbose",
        }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(
          error.message,
          /ABAS_API_URL: expected the http\(s\) URL of the ABAS REST API.*\(got "ftp:\/\/example.com"\)/,
        );
        assert.match(
          error.message,
          /ABAS_API_KEY: expected an ABAS API key: abas_ followed by 32 to 44 base58 characters/,
        );
        assert.match(error.message, /ABAS_PROGRAM_ID: expected the base58 address of the ABAS program/);
        assert.match(error.message, /LOG_LEVEL: /);
        assert.doesNotMatch(error.message, /tooShort/);
        return true;
      },
    );
  });
});

describe("logger", () => {
  it("writes lines at or above its level, and nothing when silent", () => {
    const lines: string[] = [];
    const logger = createLogger("warn", (line) => lines.push(line));
    logger.debug("d");
    logger.info("i");
    logger.warn("w");
    logger.error("e");
    assert.deepEqual(
      lines.map((line) => line.replace(/^\S+ /, "")),
      ["abas-mcp warn: w\n", "abas-mcp error: e\n"],
    );
    const silent: string[] = [];
    createLogger("silent", (line) => silent.push(line)).error("x");
    assert.deepEqual(silent, []);
  });
});
