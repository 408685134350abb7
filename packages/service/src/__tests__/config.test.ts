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
