import { murmur3 } from "./murmur3.js";

/**
 * Syscalls the Solana runtime registers for SBPF programs. A call to any other undefined symbol
 * would fail to deploy (v0: "Unresolved symbol") or abort when it runs (v3), so the linker refuses
 * it up front: it is almost always a missing function or a compiler runtime helper (memcmp,
 * __multi3, ...). Some are registered only once a feature is active: litesvm 1.5's mainnet feature
 * set lacks sol_blake3, sol_big_mod_exp and sol_remaining_compute_units (sol_get_fees_sysvar,
 * removed by the disable_fees_sysvar feature, is not accepted at all).
 */
export const SOLANA_SYSCALLS: ReadonlySet<string> = new Set([
  "abort",
  "sol_panic_",
  "sol_log_",
  "sol_log_64_",
  "sol_log_compute_units_",
  "sol_log_pubkey",
  "sol_log_data",
  "sol_create_program_address",
  "sol_try_find_program_address",
  "sol_sha256",
  "sol_keccak256",
  "sol_blake3",
  "sol_poseidon",
  "sol_secp256k1_recover",
  "sol_curve_validate_point",
  "sol_curve_group_op",
  "sol_curve_multiscalar_mul",
  "sol_alt_bn128_group_op",
  "sol_alt_bn128_compression",
  "sol_big_mod_exp",
  "sol_get_clock_sysvar",
  "sol_get_epoch_schedule_sysvar",
  "sol_get_rent_sysvar",
  "sol_get_last_restart_slot",
  "sol_get_epoch_rewards_sysvar",
  "sol_get_sysvar",
  "sol_get_epoch_stake",
  "sol_memcpy_",
  "sol_memmove_",
  "sol_memcmp_",
  "sol_memset_",
  "sol_get_processed_sibling_instruction",
  "sol_get_stack_height",
  "sol_set_return_data",
  "sol_get_return_data",
  "sol_invoke_signed_c",
  "sol_invoke_signed_rust",
  "sol_alloc_free_",
  "sol_remaining_compute_units",
]);

/** The key the runtime registers a syscall under, and the immediate of a v3 `call` to it. */
export function syscallHash(name: string): number {
  return murmur3(new TextEncoder().encode(name));
}
