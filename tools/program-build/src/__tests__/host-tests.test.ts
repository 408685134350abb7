import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { TOOLS } from "../toolchain.js";
import { FIXTURES_DIR, runScript } from "./helpers/scripts.js";
import { skipWithoutTools } from "./helpers/toolchain.js";

// rustc links host test binaries with the system C compiler driver, which rustc-web depends on.
const skip = skipWithoutTools([TOOLS.rustc, "cc"]);

describe("host-tests", { skip }, () => {
  let scratch = "";
  before(() => {
    scratch = mkdtempSync(join(tmpdir(), "host-tests-"));
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  const runFixture = (fixture: string) =>
    runScript("host-tests.ts", [
      "--crate",
      join(FIXTURES_DIR, fixture, "src", "lib.rs"),
      "--out",
      join(scratch, fixture),
    ]);

  test("compiles the crate's tests for the host, runs them and exits 0 when they pass", () => {
    // Given a crate whose tests pass, when its host tests run
    const run = runFixture("host-tests-pass");
    // Then the test binary's report is shown and the exit code is 0
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /test result: ok\. 2 passed/);
  });

  test("exits with the test binary's code when a test fails", () => {
    // Given a crate with a failing test, when its host tests run
    const run = runFixture("host-tests-fail");
    // Then the failure is shown and the exit code is the test harness's (101)
    assert.equal(run.status, 101);
    assert.match(run.stdout + run.stderr, /host test fixture fails on purpose/);
  });

  test("exits non-zero when the crate does not compile", () => {
    // Given a crate root that does not exist, when its host tests run, then rustc's failure is the result
    const run = runFixture("no-such-crate");
    assert.notEqual(run.status, 0);
    assert.match(run.stderr, /error/);
  });
});
