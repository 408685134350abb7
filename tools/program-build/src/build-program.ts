import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, isAbsolute, join, relative } from "node:path";
import { performance } from "node:perf_hooks";
import { applyIrFixups, summarizeIrFixups, type IrFixupReport } from "./ir-fixups.js";
import { runTool, ToolFailedError } from "./run-tool.js";
import { linkSbpfProgram } from "./sbpf-link/link.js";
import { DEFAULT_SBPF_VERSION, type SbpfVersion } from "./sbpf-link/sbpf-version.js";
import type { Toolchain } from "./toolchain.js";

/**
 * The offline program build: rustc -> LLVM bitcode, + core's bitcode, internalize and optimize,
 * IR fix-ups, llc, then our SBPF post-linker. No cargo, no Solana platform tools, no network.
 */

/**
 * rustc's own optimization level. opt -O3 re-optimizes the linked module anyway, so this mostly
 * decides inlining inside the crate. Measured on the ABAS program and on a larger test program, 3
 * gave the smallest .so (2 was within 1%, "s" 4% larger). "s" and "z" also mark every function
 * optsize/minsize, which keeps functions with more than five arguments out of line, and llc
 * cannot pass a sixth argument on BPF: with "z" the program does not compile at all.
 */
export const RUSTC_OPT_LEVEL = "3";

/** SBPF v0 and v3 give every call frame a fixed 4 KiB of stack; llc must not assume less. */
const BPF_STACK_SIZE = 4096;

export interface BuildProgramOptions {
  toolchain: Toolchain;
  /** The crate root (`src/lib.rs`). */
  crateRoot: string;
  /** Crate name; the program is written to `<outDir>/<crateName>.so`. */
  crateName: string;
  outDir: string;
  /** Where intermediates go (bitcode, IR, the relocatable object). */
  workDir: string;
  /** Remapped to "." in every path rustc records, so the bytes do not depend on the checkout path. */
  sourceRoot: string;
  /** Overrides RUSTC_OPT_LEVEL, for measurements. */
  rustcOptLevel?: "2" | "3" | "s" | "z";
  /** The SBPF version to emit; DEFAULT_SBPF_VERSION (3) unless set. */
  sbpfVersion?: SbpfVersion;
  log?: (line: string) => void;
}

export interface BuildInfo {
  program: string;
  /** The ELF's e_flags: which SBPF the loader runs it as. */
  sbpfVersion: SbpfVersion;
  sha256: string;
  bytes: number;
  textBytes: number;
  rodataBytes: number;
  syscalls: string[];
  toolchain: { rustc: string; llc: string };
  rustcOptLevel: string;
  irFixups: IrFixupReport;
}

export interface BuildProgramResult {
  programPath: string;
  program: Uint8Array;
  sha256: string;
  buildInfo: BuildInfo;
}

const STEP_COUNT = 9;

function createStepRunner(log: (line: string) => void) {
  let step = 0;
  return function runStep<T>(label: string, work: () => T, describe?: (result: T) => string): T {
    step += 1;
    const started = performance.now();
    const result = work();
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const detail = describe ? `: ${describe(result)}` : "";
    log(`[${step}/${STEP_COUNT}] ${label}${detail} (${seconds}s)`);
    return result;
  };
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function toolVersions(toolchain: Toolchain): BuildInfo["toolchain"] {
  const rustc = runTool(toolchain.rustc, ["--version"]).trim();
  const llcLines = runTool(toolchain.llc, ["--version"]).split("\n");
  const llc = llcLines.find((line) => line.includes("LLVM version")) ?? llcLines[0] ?? "";
  return { rustc, llc: llc.trim() };
}

/** `path` relative to `root` when it lies inside it. */
function pathInside(root: string, path: string): string | undefined {
  const inside = relative(root, path);
  return inside.startsWith("..") || isAbsolute(inside) ? undefined : inside;
}

function compileCrateToBitcode(options: BuildProgramOptions, output: string): void {
  const { toolchain, crateRoot, crateName, sourceRoot } = options;
  runTool(
    toolchain.rustc,
    [
      "--edition",
      "2021",
      "--crate-name",
      crateName,
      "--crate-type=staticlib",
      "--target",
      "bpfel-unknown-none",
      "-C",
      `opt-level=${options.rustcOptLevel ?? RUSTC_OPT_LEVEL}`,
      "-C",
      "panic=abort",
      "-C",
      "codegen-units=1",
      "-C",
      "target-cpu=v2",
      "--emit=llvm-bc",
      `--remap-path-prefix=${sourceRoot}=.`,
      "-o",
      output,
      pathInside(sourceRoot, crateRoot) ?? crateRoot,
    ],
    { cwd: sourceRoot },
  );
}

const LLVM_BITCODE_MAGIC = Uint8Array.of(0x42, 0x43, 0xc0, 0xde);

/** Debian's bpfel-unknown-none rlibs hold LLVM bitcode in place of machine code. */
function extractCoreBitcode(toolchain: Toolchain, directory: string): string {
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  runTool(toolchain.ar, ["x", toolchain.coreRlib], { cwd: directory });
  const object = readdirSync(directory).find((file) => /^core-.*\.rcgu\.o$/.test(file));
  if (object === undefined) throw new Error(`No core object file in ${toolchain.coreRlib}`);
  const path = join(directory, object);
  const header = readFileSync(path).subarray(0, 4);
  if (!LLVM_BITCODE_MAGIC.every((byte, i) => header[i] === byte)) {
    throw new Error(`${object} in ${toolchain.coreRlib} is not LLVM bitcode`);
  }
  return path;
}

/** What to change in the program for the llc failures that are about SBPF's limits, not the build. */
export function codegenFailureHint(stderr: string): string | undefined {
  if (/too many arguments|stack arguments are not supported/.test(stderr)) {
    return (
      "a call with more than 5 arguments was not inlined, and BPF passes arguments in r1-r5 only: " +
      "pass a struct by reference or mark the callee #[inline(always)] (core::fmt integer formatting also does this)"
    );
  }
  const builtin = /A call to built-in function '([^']+)' is not supported/.exec(stderr)?.[1];
  if (builtin !== undefined) {
    return (
      `LLVM needed the runtime function ${builtin}, which SBPF programs do not have: ` +
      "avoid u128/i128 arithmetic and signed checked multiplication"
    );
  }
  return undefined;
}

function withCodegenHint<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    const hint = error instanceof ToolFailedError ? codegenFailureHint(error.stderr) : undefined;
    if (error instanceof ToolFailedError && hint !== undefined) {
      throw new ToolFailedError(error.command, error.exitCode, `${error.stderr.trimEnd()}\nhint: ${hint}`);
    }
    throw error;
  }
}

function describeSize(bytes: number): string {
  return `${bytes.toLocaleString("en-US")} bytes`;
}

export function buildProgram(options: BuildProgramOptions): BuildProgramResult {
  const { toolchain, crateName, outDir, workDir } = options;
  const sbpfVersion = options.sbpfVersion ?? DEFAULT_SBPF_VERSION;
  const runStep = createStepRunner(options.log ?? (() => undefined));
  mkdirSync(workDir, { recursive: true });
  const file = (suffix: string): string => join(workDir, `${crateName}${suffix}`);

  runStep(`rustc ${relative(options.sourceRoot, options.crateRoot)} -> LLVM bitcode`, () =>
    compileCrateToBitcode(options, file(".bc")),
  );
  const coreBitcode = runStep("ar x: core bitcode from the Debian rlib", () =>
    extractCoreBitcode(toolchain, join(workDir, "core")),
  );
  runStep("llvm-link-22: add the core functions the crate uses", () =>
    runTool(toolchain.llvmLink, [file(".bc"), "--only-needed", coreBitcode, "-o", file(".linked.bc")]),
  );
  runStep("opt-22: internalize all but entrypoint, O3", () =>
    runTool(toolchain.opt, [
      "-passes=internalize,globaldce,default<O3>",
      "-internalize-public-api-list=entrypoint",
      file(".linked.bc"),
      "-o",
      file(".opt.bc"),
    ]),
  );
  runStep("llvm-dis-22: bitcode -> IR text", () =>
    runTool(toolchain.llvmDis, [file(".opt.bc"), "-o", file(".opt.ll")]),
  );
  const fixups = runStep(
    "IR fix-ups",
    () => {
      const result = applyIrFixups(readFileSync(file(".opt.ll"), "utf8"));
      writeFileSync(file(".fixed.ll"), result.ir);
      return result.report;
    },
    summarizeIrFixups,
  );
  runStep("llc-22: IR -> BPF relocatable object (cpu v2)", () =>
    withCodegenHint(() =>
      runTool(toolchain.llc, [
        "-O3",
        "-march=bpfel",
        "-mcpu=v2",
        `-bpf-stack-size=${BPF_STACK_SIZE}`,
        "-filetype=obj",
        "-o",
        file(".o"),
        file(".fixed.ll"),
      ]),
    ),
  );
  const linked = runStep(
    `sbpf-link: relocatable object -> SBPF v${sbpfVersion} program`,
    () => linkSbpfProgram(readFileSync(file(".o")), { sbpfVersion }),
    ({ report }) => `${describeSize(report.programBytes)}, syscalls ${report.syscalls.join(" ") || "none"}`,
  );

  const programName = `${crateName}.so`;
  const programPath = join(outDir, programName);
  const sha256 = sha256Hex(linked.program);
  const buildInfo: BuildInfo = {
    program: programName,
    sbpfVersion,
    sha256,
    bytes: linked.report.programBytes,
    textBytes: linked.report.textBytes,
    rodataBytes: linked.report.rodataBytes,
    syscalls: [...linked.report.syscalls].sort(),
    toolchain: toolVersions(toolchain),
    rustcOptLevel: options.rustcOptLevel ?? RUSTC_OPT_LEVEL,
    irFixups: fixups,
  };
  runStep(`write ${basename(outDir)}/${programName}, .sha256, build-info.json`, () => {
    mkdirSync(outDir, { recursive: true });
    writeFileSync(programPath, linked.program);
    writeFileSync(`${programPath}.sha256`, `${sha256}  ${programName}\n`);
    writeFileSync(join(outDir, "build-info.json"), `${JSON.stringify(buildInfo, null, 2)}\n`);
  });
  return { programPath, program: linked.program, sha256, buildInfo };
}
