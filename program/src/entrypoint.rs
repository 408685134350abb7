//! The on-chain entrypoint, the panic handler and the C memory functions LLVM may call.

use crate::error::ProgramError;
use crate::processor::process;
use crate::syscalls::{abort, log, sol_memcmp_, sol_memcpy_, sol_memmove_, sol_memset_};

/// # Safety
/// Called by the loader with its input region.
#[no_mangle]
pub unsafe extern "C" fn entrypoint(input: *mut u8) -> u64 {
    // SAFETY: the loader passes its serialized input.
    let input = unsafe { crate::input::parse(input) };
    match process(&input) {
        Ok(()) => 0,
        Err(error) => report(error),
    }
}

fn report(error: ProgramError) -> u64 {
    log("abas: error");
    log(error.name());
    error as u64
}

/// Never reached by design (every parser returns an error instead); if it were, abort cleanly.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    log("abas: panic");
    // SAFETY: abort ends the program; it never returns.
    unsafe { abort() }
}

// The memory functions below route what LLVM lowers to libc calls onto the runtime's syscalls.

/// # Safety
/// As C memcpy.
#[no_mangle]
pub unsafe extern "C" fn memcpy(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: forwarded contract.
    unsafe { sol_memcpy_(dst, src, n as u64) };
    dst
}

/// # Safety
/// As C memmove.
#[no_mangle]
pub unsafe extern "C" fn memmove(dst: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: forwarded contract.
    unsafe { sol_memmove_(dst, src, n as u64) };
    dst
}

/// # Safety
/// As C memset.
#[no_mangle]
pub unsafe extern "C" fn memset(dst: *mut u8, c: i32, n: usize) -> *mut u8 {
    // SAFETY: forwarded contract.
    unsafe { sol_memset_(dst, c as u8, n as u64) };
    dst
}

/// # Safety
/// As C memcmp.
#[no_mangle]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    let mut result = 0i32;
    // SAFETY: forwarded contract; result is a valid out pointer.
    unsafe { sol_memcmp_(a, b, n as u64, &mut result) };
    result
}

/// # Safety
/// As C bcmp.
#[no_mangle]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    // SAFETY: forwarded contract.
    unsafe { memcmp(a, b, n) }
}
