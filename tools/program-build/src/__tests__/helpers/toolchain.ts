import { findExecutable, missingToolchainParts } from "../../toolchain.js";

const INSTALL_HINT = "apt-get install rustc-web libstd-rust-web-dev-bpf llvm-22";

const skipReason = (missing: string[]): string | false =>
  missing.length === 0 ? false : `needs ${missing.join(", ")}: ${INSTALL_HINT}`;

/** A node:test `skip` value: false when the whole build toolchain is present, else why not. */
export function skipWithoutToolchain(): string | false {
  return skipReason(missingToolchainParts());
}

/** Like skipWithoutToolchain, for tests that only run the given tools. */
export function skipWithoutTools(tools: readonly string[]): string | false {
  return skipReason(tools.filter((tool) => !findExecutable(tool)));
}
