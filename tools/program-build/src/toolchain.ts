import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

/**
 * The Debian toolchain the offline build uses. rustc is called by absolute path: a rustup rustc
 * may come first on PATH, and it has no precompiled core for bpfel-unknown-none.
 */
export const TOOLS = {
  rustc: "/usr/bin/rustc",
  llvmLink: "llvm-link-22",
  opt: "opt-22",
  llvmDis: "llvm-dis-22",
  llc: "llc-22",
  // Comes with binutils, which rustc-web depends on.
  ar: "ar",
} as const;

export const BPF_RUSTLIB_DIR = "/usr/lib/rustlib/bpfel-unknown-none/lib";

export const TOOLCHAIN_PACKAGES = ["rustc-web", "libstd-rust-web-dev-bpf", "llvm-22"] as const;
export const TOOLCHAIN_INSTALL_COMMAND = `apt-get install -y ${TOOLCHAIN_PACKAGES.join(" ")}`;

export interface Toolchain {
  rustc: string;
  llvmLink: string;
  opt: string;
  llvmDis: string;
  llc: string;
  ar: string;
  /** Debian's precompiled core for bpfel-unknown-none; its object file is LLVM bitcode. */
  coreRlib: string;
}

export class ToolchainMissingError extends Error {
  readonly missing: string[];

  constructor(missing: string[]) {
    super(`Missing build tools: ${missing.join(", ")}. Install them with:\n  ${TOOLCHAIN_INSTALL_COMMAND}`);
    this.name = "ToolchainMissingError";
    this.missing = missing;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findExecutable(name: string): string | undefined {
  if (isAbsolute(name)) return isExecutable(name) ? name : undefined;
  for (const directory of (process.env.PATH ?? "").split(delimiter)) {
    if (directory !== "" && isExecutable(join(directory, name))) return join(directory, name);
  }
  return undefined;
}

export function findCoreRlib(directory: string = BPF_RUSTLIB_DIR): string | undefined {
  if (!existsSync(directory)) return undefined;
  const rlib = readdirSync(directory)
    .filter((file) => /^libcore-[0-9a-f]+\.rlib$/.test(file))
    .sort()[0];
  return rlib === undefined ? undefined : join(directory, rlib);
}

/** What is missing from the toolchain (tool names, or the core rlib), plus any `extraTools`. */
export function missingToolchainParts(extraTools: readonly string[] = []): string[] {
  const missing = [...Object.values(TOOLS), ...extraTools].filter((tool) => !findExecutable(tool));
  if (!findCoreRlib()) missing.push(`${BPF_RUSTLIB_DIR}/libcore-*.rlib`);
  return missing;
}

export function locateToolchain(): Toolchain {
  const missing = missingToolchainParts();
  const coreRlib = findCoreRlib();
  if (missing.length > 0 || coreRlib === undefined) throw new ToolchainMissingError(missing);
  return { ...TOOLS, coreRlib };
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}

function runApt(args: string[], log: (line: string) => void): boolean {
  const result = spawnSync("apt-get", args, { stdio: "inherit" });
  if (result.status === 0) return true;
  log(`apt-get ${args.join(" ")} failed: ${result.error?.message ?? `exit code ${result.status}`}`);
  return false;
}

/**
 * Returns the toolchain, installing it with apt first when something is missing and we are root.
 * If it is still incomplete, throws ToolchainMissingError, whose message carries the install command.
 */
export function ensureToolchain(
  log: (line: string) => void,
  { runningAsRoot = isRoot() }: { runningAsRoot?: boolean } = {},
): Toolchain {
  const missing = missingToolchainParts();
  if (missing.length > 0 && runningAsRoot) {
    log(`Installing the build toolchain (missing: ${missing.join(", ")})`);
    if (runApt(["update"], log)) runApt(["install", "-y", ...TOOLCHAIN_PACKAGES], log);
  }
  return locateToolchain();
}
