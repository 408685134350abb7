import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { TOOLCHAIN_INSTALL_COMMAND } from "../toolchain.js";
import { FIXTURES_DIR, runScript } from "./helpers/scripts.js";
import { skipWithoutToolchain } from "./helpers/toolchain.js";

const fixtureArgs = (scratch: string): string[] => [
  "--crate",
  join(FIXTURES_DIR, "sample-program", "src", "lib.rs"),
  "--name",
  "sample_program",
  "--out",
  join(scratch, "dist"),
  "--work-dir",
  join(scratch, "work"),
];

describe("cli: usage", () => {
  test("--help prints the options and exits 0", () => {
    const run = runScript("cli.ts", ["--help"]);
    assert.equal(run.status, 0);
    for (const option of ["--verify", "--sbpf-version", "--out", "--crate", "--name"])
      assert.match(run.stdout, new RegExp(option));
  });

  test("an SBPF version the linker cannot emit exits 1 naming the ones it can", () => {
    const run = runScript("cli.ts", ["--sbpf-version", "2"]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /--sbpf-version 2: the linker emits SBPF v0 or v3/);
  });

  test("an unknown option exits 1 with an explanation", () => {
    const run = runScript("cli.ts", ["--frobnicate"]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /frobnicate/);
  });

  test("without the toolchain (and unable to install it) it prints the apt-get command and exits 1", () => {
    // Given a PATH on which neither the LLVM tools nor apt-get can be found
    const emptyPath = mkdtempSync(join(tmpdir(), "empty-path-"));
    try {
      // When a build is requested
      const run = runScript("cli.ts", fixtureArgs(emptyPath), { ...process.env, PATH: emptyPath });
      // Then it names what is missing and prints the install command on a line of its own
      assert.equal(run.status, 1);
      assert.match(run.stderr, /Missing build tools: .*llc-22/);
      assert.ok(run.stdout.split("\n").includes(TOOLCHAIN_INSTALL_COMMAND), run.stdout);
    } finally {
      rmSync(emptyPath, { recursive: true, force: true });
    }
  });
});

describe("cli: build and --verify", { skip: skipWithoutToolchain() }, () => {
  let scratch = "";
  let build: ReturnType<typeof runScript>;

  before(() => {
    scratch = mkdtempSync(join(tmpdir(), "program-build-cli-"));
    build = runScript("cli.ts", fixtureArgs(scratch));
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  test("a build prints one timed progress line per step and writes the program", () => {
    // Given the build above, then it succeeded with nine numbered, timed steps
    assert.equal(build.status, 0, build.stderr);
    const steps = build.stdout.split("\n").filter((line) => /^\[\d\/9\] .* \(\d+\.\d\ds\)$/.test(line));
    assert.equal(steps.length, 9, build.stdout);
    const sha256 = readFileSync(join(scratch, "dist", "sample_program.so.sha256"), "utf8").split(" ")[0];
    assert.match(build.stdout, new RegExp(`sha256 ${sha256}`));
  });

  test("the build is SBPF v3 unless --sbpf-version 0 asks for v0", () => {
    // Given the default build above, then its e_flags and its summary line say v3
    const eFlags = (dist: string) => readFileSync(join(dist, "sample_program.so")).readUInt32LE(48);
    assert.equal(eFlags(join(scratch, "dist")), 3);
    assert.match(build.stdout, /Built .*sample_program\.so \(SBPF v3, /);
    // When the same crate is built with --sbpf-version 0
    const v0 = runScript("cli.ts", [...fixtureArgs(join(scratch, "v0")), "--sbpf-version", "0"]);
    // Then the program is SBPF v0
    assert.equal(v0.status, 0, v0.stderr);
    assert.equal(eFlags(join(scratch, "v0", "dist")), 0);
    assert.match(v0.stdout, /\[8\/9\] sbpf-link: relocatable object -> SBPF v0 program/);
  });

  test("--verify confirms that a fresh build reproduces the program", () => {
    // Given the program built above, when it is verified
    const run = runScript("cli.ts", [...fixtureArgs(scratch), "--verify"]);
    // Then the rebuild matches
    assert.equal(run.status, 0, run.stderr);
    const sha256 = readFileSync(join(scratch, "dist", "sample_program.so.sha256"), "utf8").split(" ")[0];
    assert.ok(run.stdout.includes(`sample_program.so is reproducible (sha256 ${sha256})`), run.stdout);
  });

  test("--verify fails with both hashes when the committed program differs", () => {
    // Given a tampered copy of the program
    const programPath = join(scratch, "dist", "sample_program.so");
    const original = readFileSync(programPath);
    const tampered = Buffer.from(original);
    const last = tampered.length - 1;
    tampered.writeUInt8(tampered.readUInt8(last) ^ 0xff, last);
    writeFileSync(programPath, tampered);
    try {
      // When it is verified
      const run = runScript("cli.ts", [...fixtureArgs(scratch), "--verify"]);
      // Then verification fails and shows the committed and the rebuilt sha256
      assert.equal(run.status, 1);
      const expected = readFileSync(join(scratch, "dist", "sample_program.so.sha256"), "utf8").split(" ")[0];
      assert.match(run.stderr, new RegExp(`rebuilt +sha256 ${expected}`));
      assert.match(run.stderr, /committed +sha256 [0-9a-f]{64}/);
    } finally {
      writeFileSync(programPath, original);
    }
  });

  test("--verify without a committed program exits 1", () => {
    const run = runScript("cli.ts", [
      ...fixtureArgs(scratch),
      "--verify",
      "--out",
      join(scratch, "nothing-here"),
    ]);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /does not exist/);
  });
});
