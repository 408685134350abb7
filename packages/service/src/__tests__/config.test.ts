/**
 * `npm start`'s settings: on a newcomer's loopback machine nothing is needed; listening on any
 * other address without PUBLIC_URL is refused before anything starts, because sign-in and share
 * links must name the site by a configured origin, never by the Host a client sends.
 */
import assert from "node:assert/strict";
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
  // With another ledger (RPC_URL), the local ledger's ports are not used
  assert.equal(
    loadServiceConfig({ RPC_URL: "http://127.0.0.1:9999", LEDGER_RPC_PORT: "8080" }).apiPort,
    8080,
  );
});
