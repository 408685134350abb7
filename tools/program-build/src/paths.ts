import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root, found from this file so scripts work from any working directory. */
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

export const DEFAULT_CRATE_ROOT = join(REPO_ROOT, "program", "src", "lib.rs");
export const DEFAULT_PROGRAM_NAME = "abas_attestation";

/** `<crate>/src/lib.rs` -> `<crate>`: outputs go to `<crate>/dist`, intermediates to `<crate>/target`. */
export function crateDirectory(crateRoot: string): string {
  return dirname(dirname(crateRoot));
}

export function defaultOutDir(crateRoot: string): string {
  return join(crateDirectory(crateRoot), "dist");
}

export function defaultWorkDir(crateRoot: string): string {
  return join(crateDirectory(crateRoot), "target", "sbpf");
}
