import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { buildProgram, sha256Hex } from "./build-program.js";
import {
  DEFAULT_CRATE_ROOT,
  DEFAULT_PROGRAM_NAME,
  defaultOutDir,
  defaultWorkDir,
  REPO_ROOT,
} from "./paths.js";
import { ToolFailedError } from "./run-tool.js";
import { isSbpfLinkError } from "./sbpf-link/errors.js";
import {
  DEFAULT_SBPF_VERSION,
  parseSbpfVersion,
  SBPF_VERSIONS,
  type SbpfVersion,
} from "./sbpf-link/sbpf-version.js";
import { ensureToolchain, TOOLCHAIN_INSTALL_COMMAND, ToolchainMissingError } from "./toolchain.js";

const USAGE = `Usage: npm run program:build -- [options]
       tsx tools/program-build/src/cli.ts [options]

Builds program/src/lib.rs into program/dist/abas_attestation.so (+ .sha256, build-info.json).

Options:
  --verify              rebuild in a temporary directory and fail if the bytes differ from the committed .so
  --sbpf-version <v>    ${SBPF_VERSIONS.join(" or ")} (default: ${DEFAULT_SBPF_VERSION}); v0 only for comparisons: SIMD-0500 refuses to deploy it
  --out <dir>           output directory (default: <crate>/dist, i.e. program/dist)
  --crate <lib.rs>      crate root to build (default: program/src/lib.rs)
  --name <name>         crate and program name (default: ${DEFAULT_PROGRAM_NAME})
  --work-dir <dir>      intermediates (default: <crate>/target/sbpf, i.e. program/target/sbpf)
  -h, --help            show this help`;

interface CliOptions {
  verify: boolean;
  sbpfVersion: SbpfVersion;
  crateRoot: string;
  name: string;
  outDir: string;
  workDir: string;
}

function parseCliOptions(argv: string[]): CliOptions | "help" {
  const { values } = parseArgs({
    args: argv,
    options: {
      verify: { type: "boolean", default: false },
      "sbpf-version": { type: "string" },
      out: { type: "string" },
      crate: { type: "string" },
      name: { type: "string" },
      "work-dir": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
    strict: true,
  });
  if (values.help) return "help";
  const crateRoot = values.crate ? resolve(values.crate) : DEFAULT_CRATE_ROOT;
  return {
    verify: values.verify,
    sbpfVersion: sbpfVersionOption(values["sbpf-version"]),
    crateRoot,
    name: values.name ?? DEFAULT_PROGRAM_NAME,
    outDir: values.out ? resolve(values.out) : defaultOutDir(crateRoot),
    workDir: values["work-dir"] ? resolve(values["work-dir"]) : defaultWorkDir(crateRoot),
  };
}

function sbpfVersionOption(value: string | undefined): SbpfVersion {
  if (value === undefined) return DEFAULT_SBPF_VERSION;
  const version = parseSbpfVersion(value);
  if (version === undefined) {
    throw new Error(
      `--sbpf-version ${value}: the linker emits SBPF ${SBPF_VERSIONS.map((v) => `v${v}`).join(" or ")}`,
    );
  }
  return version;
}

/** Paths inside the repository are shown relative to its root, others as they are. */
function display(path: string): string {
  const inside = relative(REPO_ROOT, path);
  return inside === "" || inside.startsWith("..") || isAbsolute(inside) ? path : inside;
}

function build(options: CliOptions, log: (line: string) => void): void {
  const toolchain = ensureToolchain(log);
  const result = buildProgram({
    toolchain,
    crateRoot: options.crateRoot,
    crateName: options.name,
    outDir: options.outDir,
    workDir: options.workDir,
    sourceRoot: REPO_ROOT,
    sbpfVersion: options.sbpfVersion,
    log,
  });
  log(
    `Built ${display(result.programPath)} (SBPF v${result.buildInfo.sbpfVersion}, ${result.buildInfo.bytes} bytes, sha256 ${result.sha256})`,
  );
}

/** Rebuilds from scratch in a temporary directory; returns the process exit code. */
function verify(options: CliOptions, log: (line: string) => void): number {
  const committedPath = join(options.outDir, `${options.name}.so`);
  if (!existsSync(committedPath)) {
    console.error(`${display(committedPath)} does not exist: build it with npm run program:build`);
    return 1;
  }
  const toolchain = ensureToolchain(log);
  const scratch = mkdtempSync(join(tmpdir(), "program-verify-"));
  try {
    const rebuilt = buildProgram({
      toolchain,
      crateRoot: options.crateRoot,
      crateName: options.name,
      outDir: join(scratch, "dist"),
      workDir: join(scratch, "work"),
      sourceRoot: REPO_ROOT,
      sbpfVersion: options.sbpfVersion,
      log,
    });
    const committed = sha256Hex(readFileSync(committedPath));
    if (committed !== rebuilt.sha256) {
      console.error(`${display(committedPath)} is NOT reproducible:`);
      console.error(`  committed  sha256 ${committed}`);
      console.error(`  rebuilt    sha256 ${rebuilt.sha256}`);
      return 1;
    }
    console.log(`${display(committedPath)} is reproducible (sha256 ${committed})`);
    return 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function reportFailure(error: unknown): void {
  if (error instanceof ToolchainMissingError) {
    console.error(`Missing build tools: ${error.missing.join(", ")}. Install them with:`);
    console.log(TOOLCHAIN_INSTALL_COMMAND);
  } else if (isSbpfLinkError(error)) {
    console.error(`sbpf-link failed [${error.code}]: ${error.message}`);
  } else if (error instanceof ToolFailedError) {
    console.error(error.message);
  } else {
    console.error(error instanceof Error ? error.message : String(error));
  }
}

export function main(argv: string[] = process.argv.slice(2)): number {
  const log = (line: string): void => console.log(line);
  try {
    const options = parseCliOptions(argv);
    if (options === "help") {
      console.log(USAGE);
      return 0;
    }
    if (options.verify) return verify(options, log);
    build(options, log);
    return 0;
  } catch (error) {
    reportFailure(error);
    return 1;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = main();
}
