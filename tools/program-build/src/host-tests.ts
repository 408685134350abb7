import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { DEFAULT_CRATE_ROOT, REPO_ROOT } from "./paths.js";
import { TOOLS } from "./toolchain.js";

/**
 * Runs the program crate's unit tests on the host: the crate is `no_std` only outside `cfg(test)`,
 * so rustc can build it as an ordinary test binary.
 */

export interface HostTestOptions {
  crateRoot: string;
  binaryPath: string;
  /** Passed to the test binary, e.g. a test name filter or `--nocapture`. */
  testArgs?: string[];
}

export const DEFAULT_HOST_TEST_BINARY = join(REPO_ROOT, "program", "target", "host-tests");

/** Compiles and runs the tests with inherited stdio (output streams live); returns the exit code. */
export function runHostTests({ crateRoot, binaryPath, testArgs = [] }: HostTestOptions): number {
  mkdirSync(dirname(binaryPath), { recursive: true });
  const compile = spawnSync(
    TOOLS.rustc,
    ["--edition", "2021", "--test", relative(REPO_ROOT, crateRoot), "-o", binaryPath],
    { cwd: REPO_ROOT, stdio: "inherit" },
  );
  if (compile.error) {
    console.error(`Cannot run ${TOOLS.rustc}: ${compile.error.message}`);
    return 1;
  }
  if (compile.status !== 0) return compile.status ?? 1;
  const run = spawnSync(binaryPath, testArgs, { stdio: "inherit" });
  if (run.error) {
    console.error(`Cannot run ${binaryPath}: ${run.error.message}`);
    return 1;
  }
  return run.status ?? 1;
}

export function main(argv: string[] = process.argv.slice(2)): number {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { crate: { type: "string" }, out: { type: "string" } },
    allowPositionals: true,
    strict: true,
  });
  return runHostTests({
    crateRoot: values.crate ? resolve(values.crate) : DEFAULT_CRATE_ROOT,
    binaryPath: values.out ? resolve(values.out) : DEFAULT_HOST_TEST_BINARY,
    testArgs: positionals,
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main();
}
