/**
 * The SBPF versions the linker can emit. The version is the ELF header's e_flags; the loader picks
 * the instruction semantics, the memory layout and the ELF parser from it.
 *
 * - v0: the legacy format. Syscalls and addresses are patched by the loader through dynamic
 *   relocations. SIMD-0500 stops its deployment and upgrades.
 * - v3: static syscalls (SIMD-0178), the strict ELF layout (SIMD-0189) and upstream eBPF encoding
 *   (SIMD-0377: JMP32, callx through dst). Nothing is left for the loader to patch.
 */
export type SbpfVersion = 0 | 3;

export const SBPF_VERSIONS: readonly SbpfVersion[] = [0, 3];

/** What the build emits unless told otherwise: the only version SIMD-0500 still lets deploy. */
export const DEFAULT_SBPF_VERSION: SbpfVersion = 3;

/**
 * SIMD-0500 `disable_sbpf_v0_v1_v2_deployment`: once active, the upgradeable loader refuses to
 * deploy, upgrade or finalize v0, v1 and v2 programs (InvalidAccountData); v3 is unaffected.
 */
export const DISABLE_SBPF_V0_V1_V2_DEPLOYMENT_FEATURE = "B8JJXCy5amZyWG9r7EnUYLwzXSXTxG7GZ1qZ1qggo83g";

/** "3", "v3" -> 3; undefined for a version the linker cannot emit. */
export function parseSbpfVersion(text: string): SbpfVersion | undefined {
  const match = /^v?(\d+)$/.exec(text.trim());
  const version = match ? Number(match[1]) : Number.NaN;
  return SBPF_VERSIONS.find((known) => known === version);
}
