//! Solana syscall bindings, resolved by name when the loader links the program. On the host the
//! same functions exist as stand-ins, so the crate compiles and its pure logic unit-tests there.

use crate::Pubkey;

/// A byte slice as the syscalls take it.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct SolBytes {
    pub addr: *const u8,
    pub len: u64,
}

#[repr(C)]
pub struct SolAccountMeta {
    pub pubkey: *const Pubkey,
    pub is_writable: bool,
    pub is_signer: bool,
}

#[repr(C)]
pub struct SolInstruction {
    pub program_id: *const Pubkey,
    pub accounts: *const SolAccountMeta,
    pub account_len: u64,
    pub data: *const u8,
    pub data_len: u64,
}

#[repr(C)]
pub struct SolAccountInfo {
    pub key: *const Pubkey,
    pub lamports: *mut u64,
    pub data_len: u64,
    pub data: *mut u8,
    pub owner: *const Pubkey,
    pub rent_epoch: u64,
    pub is_signer: bool,
    pub is_writable: bool,
    pub executable: bool,
}

#[repr(C)]
pub struct SolSignerSeeds {
    pub addr: *const SolBytes,
    pub len: u64,
}

#[cfg(target_arch = "bpf")]
extern "C" {
    pub fn sol_log_(message: *const u8, len: u64);
    pub fn sol_log_pubkey(pubkey: *const u8);
    pub fn sol_sha256(vals: *const SolBytes, count: u64, out: *mut u8) -> u64;
    pub fn sol_memcpy_(dst: *mut u8, src: *const u8, n: u64);
    pub fn sol_memmove_(dst: *mut u8, src: *const u8, n: u64);
    pub fn sol_memset_(dst: *mut u8, c: u8, n: u64);
    pub fn sol_memcmp_(a: *const u8, b: *const u8, n: u64, result: *mut i32);
    pub fn sol_get_clock_sysvar(out: *mut u8) -> u64;
    pub fn sol_get_rent_sysvar(out: *mut u8) -> u64;
    pub fn sol_curve_validate_point(curve_id: u64, point: *const u8, result: *mut u8) -> u64;
    pub fn sol_invoke_signed_c(
        instruction: *const SolInstruction,
        infos: *const SolAccountInfo,
        info_count: u64,
        signers: *const SolSignerSeeds,
        signer_count: u64,
    ) -> u64;
    pub fn abort() -> !;
}

#[cfg(not(target_arch = "bpf"))]
pub use host::*;

/// Host stand-ins: logging prints, memory functions work, everything that needs a ledger
/// (hashing, curve checks, clock, rent, CPI) reports failure so host tests never mistake them for real.
#[cfg(not(target_arch = "bpf"))]
#[allow(clippy::missing_safety_doc)]
mod host {
    use super::{SolAccountInfo, SolBytes, SolInstruction, SolSignerSeeds};

    pub unsafe fn sol_log_(_message: *const u8, _len: u64) {}
    pub unsafe fn sol_log_pubkey(_pubkey: *const u8) {}
    pub unsafe fn sol_sha256(_vals: *const SolBytes, _count: u64, _out: *mut u8) -> u64 {
        1
    }
    pub unsafe fn sol_memcpy_(dst: *mut u8, src: *const u8, n: u64) {
        // SAFETY: the caller passes non-overlapping regions of n bytes, as the syscall requires.
        unsafe { core::ptr::copy_nonoverlapping(src, dst, n as usize) }
    }
    pub unsafe fn sol_memmove_(dst: *mut u8, src: *const u8, n: u64) {
        // SAFETY: the caller passes two regions of n bytes.
        unsafe { core::ptr::copy(src, dst, n as usize) }
    }
    pub unsafe fn sol_memset_(dst: *mut u8, c: u8, n: u64) {
        // SAFETY: the caller passes a writable region of n bytes.
        unsafe { core::ptr::write_bytes(dst, c, n as usize) }
    }
    pub unsafe fn sol_memcmp_(_a: *const u8, _b: *const u8, _n: u64, result: *mut i32) {
        // SAFETY: the caller passes a valid result pointer.
        unsafe { *result = 1 }
    }
    pub unsafe fn sol_get_clock_sysvar(_out: *mut u8) -> u64 {
        1
    }
    pub unsafe fn sol_get_rent_sysvar(_out: *mut u8) -> u64 {
        1
    }
    pub unsafe fn sol_curve_validate_point(_curve_id: u64, _point: *const u8, _result: *mut u8) -> u64 {
        // Neither answer: callers treat a failed call as an error.
        2
    }
    pub unsafe fn sol_invoke_signed_c(
        _instruction: *const SolInstruction,
        _infos: *const SolAccountInfo,
        _info_count: u64,
        _signers: *const SolSignerSeeds,
        _signer_count: u64,
    ) -> u64 {
        1
    }
}

/// Writes a message to the program log.
#[inline(always)]
pub fn log(message: &str) {
    // SAFETY: the pointer and length describe a live &str.
    unsafe { sol_log_(message.as_ptr(), message.len() as u64) }
}

/// Writes a public key (base58) to the program log.
#[inline(always)]
pub fn log_pubkey(key: &Pubkey) {
    // SAFETY: key points to 32 readable bytes.
    unsafe { sol_log_pubkey(key.as_ptr()) }
}

pub const EMPTY_BYTES: SolBytes = SolBytes { addr: core::ptr::null(), len: 0 };

/// The most parts `sha256` hashes in one call: a program address takes seeds, bump, program id and
/// marker.
pub const MAX_HASH_PARTS: usize = 8;

/// Writes the SHA-256 of the concatenation of up to `MAX_HASH_PARTS` parts into `out`; false when
/// there are too many parts or the runtime fails. Not inlined: its part table is set up in one
/// place instead of at every hash.
#[inline(never)]
pub fn sha256(parts: &[&[u8]], out: &mut [u8; 32]) -> bool {
    if parts.len() > MAX_HASH_PARTS {
        return false;
    }
    let mut vals = [EMPTY_BYTES; MAX_HASH_PARTS];
    for (val, part) in vals.iter_mut().zip(parts) {
        *val = SolBytes { addr: part.as_ptr(), len: part.len() as u64 };
    }
    // SAFETY: vals holds parts.len() live slices; out has room for 32 bytes.
    unsafe { sol_sha256(vals.as_ptr(), parts.len() as u64, out.as_mut_ptr()) == 0 }
}

/// Copies 32 bytes through the memcpy syscall: a fixed-size copy of byte arrays compiles to 64
/// single-byte loads and stores on SBPF, the syscall call to a handful of instructions.
pub fn copy_hash(dst: &mut [u8; 32], src: &[u8; 32]) {
    // SAFETY: two distinct 32-byte arrays (a &mut and a & cannot overlap).
    unsafe { sol_memcpy_(dst.as_mut_ptr(), src.as_ptr(), 32) }
}

const CURVE25519_EDWARDS: u64 = 0;

/// Whether 32 bytes decompress to a point of the Ed25519 curve (what a program address must not
/// be); None when the runtime gives no answer.
pub fn is_on_curve(bytes: &[u8; 32]) -> Option<bool> {
    let mut unused = 0u8;
    // SAFETY: bytes is 32 readable bytes; the syscall writes nothing for a validation.
    let rc = unsafe { sol_curve_validate_point(CURVE25519_EDWARDS, bytes.as_ptr(), &mut unused) };
    match rc {
        0 => Some(true),
        1 => Some(false),
        _ => None,
    }
}

/// The ledger's clock when the instruction runs.
#[derive(Clone, Copy, Default)]
pub struct Clock {
    pub slot: u64,
    pub unix_timestamp: i64,
}

pub fn clock() -> Option<Clock> {
    // Clock sysvar: slot, epoch_start_timestamp, epoch, leader_schedule_epoch, unix_timestamp.
    let mut raw = [0u64; 5];
    // SAFETY: raw has room for the 40-byte Clock the syscall writes.
    let rc = unsafe { sol_get_clock_sysvar(raw.as_mut_ptr() as *mut u8) };
    if rc != 0 {
        return None;
    }
    Some(Clock { slot: raw[0], unix_timestamp: raw[4] as i64 })
}

/// Lamports that make an account of `space` bytes rent-exempt, without floating point: the
/// exemption threshold is read as bits and must be a whole number of years (2.0 today, 1.0 after
/// the proposed change), which covers every cluster's setting.
pub fn minimum_balance(space: u64) -> Option<u64> {
    // Rent sysvar: lamports_per_byte_year u64, exemption_threshold f64, burn_percent u8 (+ padding).
    let mut raw = [0u64; 3];
    // SAFETY: raw has room for the 24-byte Rent the syscall writes.
    let rc = unsafe { sol_get_rent_sysvar(raw.as_mut_ptr() as *mut u8) };
    if rc != 0 {
        return None;
    }
    const ONE: u64 = 0x3ff0_0000_0000_0000; // 1.0f64
    const TWO: u64 = 0x4000_0000_0000_0000; // 2.0f64
    let years = match raw[1] {
        ONE => 1,
        TWO => 2,
        _ => return None,
    };
    const ACCOUNT_STORAGE_OVERHEAD: u64 = 128;
    let per_year = (space + ACCOUNT_STORAGE_OVERHEAD).checked_mul(raw[0])?;
    per_year.checked_mul(years)
}
