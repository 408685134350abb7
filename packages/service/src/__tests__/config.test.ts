/**
 * `npm start`'s settings: on a newcomer's loopback machine nothing is needed; listening on any
 * other address without PUBLIC_URL is refused before anything starts, because sign-in and share
 * links must name the site by a configured origin, never by the Host a client sends.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { loadServiceConfig, ServiceConfigError } from "../config.js";

test("loopback hosts need no PUBLIC_URL", () => {
  for (const HOST of ["127.0.0.1", "localhost", "::1", "127.0.0.2"]) {
    assert.equal(loadServiceConfig({ HOST }).publicUrl, undefined, HOST);
  }
});

test("a non-loopback host without PUBLIC_URL is refused, naming the variable", () => {
  for (const HOST of ["0.0.0.0", "::", "10.1.2.3", "abas.internal"]) {
    assert.throws(
      () => loadServiceConfig({ HOST }),
      (error: unknown) =>
        error instanceof ServiceConfigError &&
        /PUBLIC_URL: required when HOST \(.+\) is not a loopback address/.test(error.message),
      HOST,
    );
  }
  assert.equal(
    loadServiceConfig({ HOST: "0.0.0.0", PUBLIC_URL: "https://abas.example.com" }).publicUrl,
    "https://abas.example.com",
  );
});

test("two settings naming the same port are refused, naming both (0, any free port, may repeat)", () => {
  const cases: Array<[NodeJS.ProcessEnv, RegExp]> = [
    [{ LEDGER_RPC_PORT: "8080" }, /PORT and LEDGER_RPC_PORT are both 8080: each needs a port of its own/],
    [{ PORT: "9000", LEDGER_WS_PORT: "9000" }, /PORT and LEDGER_WS_PORT are both 9000/],
    [{ LEDGER_RPC_PORT: "9001", LEDGER_WS_PORT: "9001" }, /LEDGER_RPC_PORT and LEDGER_WS_PORT are both 9001/],
  ];
  for (const [env, message] of cases) {
    assert.throws(
      () => loadServiceConfig(env),
      (error: unknown) => error instanceof ServiceConfigError && message.test(error.message),
      JSON.stringify(env),
    );
  }
  assert.equal(loadServiceConfig({ PORT: "0", LEDGER_RPC_PORT: "0", LEDGER_WS_PORT: "0" }).apiPort, 0);
});

test("the local ledger's WebSocket port is LEDGER_RPC_PORT + 1 unless set, as abas-ledger's is", () => {
  const ports = (env: NodeJS.ProcessEnv) => {
    const config = loadServiceConfig(env);
    return [config.ledgerRpcPort, config.ledgerWsPort];
  };
  assert.deepEqual(ports({}), [8899, 8900]);
  assert.deepEqual(ports({ LEDGER_RPC_PORT: "18899" }), [18899, 18900]);
  assert.deepEqual(ports({ LEDGER_RPC_PORT: "0" }), [0, 0]);
  assert.deepEqual(ports({ LEDGER_RPC_PORT: "18899", LEDGER_WS_PORT: "19000" }), [18899, 19000]);
  assert.throws(
    () => loadServiceConfig({ LEDGER_RPC_PORT: "65535" }),
    (error: unknown) =>
      error instanceof ServiceConfigError &&
      error.message ===
        "invalid settings: LEDGER_WS_PORT: LEDGER_RPC_PORT + 1 (65536) is not a port; set LEDGER_WS_PORT",
  );
  assert.throws(
    () => loadServiceConfig({ PORT: "18900", LEDGER_RPC_PORT: "18899" }),
    /PORT and LEDGER_WS_PORT are both 18900/,
  );
});

test("the local ledger's ports beside RPC_URL (another ledger) are refused, naming both settings", () => {
  for (const [env, named] of [
    [{ RPC_URL: "http://127.0.0.1:9999", LEDGER_RPC_PORT: "8080" }, "LEDGER_RPC_PORT with RPC_URL"],
    [{ RPC_URL: "http://127.0.0.1:9999", LEDGER_WS_PORT: "9000" }, "LEDGER_WS_PORT with RPC_URL"],
    [
      { RPC_URL: "http://127.0.0.1:9999", LEDGER_RPC_PORT: "9001", LEDGER_WS_PORT: "9002" },
      "LEDGER_RPC_PORT and LEDGER_WS_PORT with RPC_URL",
    ],
  ] as const) {
    assert.throws(
      () => loadServiceConfig(env),
      (error: unknown) =>
        error instanceof ServiceConfigError &&
        error.message.startsWith(`invalid settings: ${named}: RPC_URL follows a ledger that runs elsewhere`),
      JSON.stringify(env),
    );
  }
  assert.equal(loadServiceConfig({ RPC_URL: "http://127.0.0.1:9999" }).localLedger, false);
});

test("the settings of .env.example as they are, empty ones included, are the defaults", () => {
  const example = readFileSync(new URL("../../.env.example", import.meta.url), "utf8");
  const env = Object.fromEntries(
    example
      .split("\n")
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
  assert.ok("RPC_URL" in env && env.RPC_URL === "");
  assert.deepEqual(loadServiceConfig(env), loadServiceConfig({}));
});
