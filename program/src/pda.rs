//! Program derived addresses, derived on chain and proven canonical.
//!
//! A program address is `H(seeds ‖ bump ‖ program id ‖ "ProgramDerivedAddress")` when that hash is
//! not a point of the Ed25519 curve. About half of the 256 bumps give one, so a program that only
//! checks "these seeds and this bump give this address" accepts ~128 addresses per seed set. The
//! canonical address is the one at the highest bump that gives an address; the client passes that
//! bump as a hint and the program proves it: the hint gives the account's address, and every
//! higher bump gives a point on the curve. The proof costs one SHA-256 and one curve check per
//! bump from 255 down to the hint (about two on average), cheaper than one
//! `sol_create_program_address` call.

use crate::error::ProgramError;
use crate::syscalls::{is_on_curve, sha256, MAX_HASH_PARTS};
use crate::Pubkey;

const PDA_MARKER: &[u8] = b"ProgramDerivedAddress";
/// Seeds besides the bump: what `sha256` has room for next to the bump, program id and marker.
pub const MAX_SEEDS: usize = MAX_HASH_PARTS - 3;

/// The program address of `seeds` at `bump` under `program_id`, or None when the hash is on the
/// curve.
pub fn program_address(
    seeds: &[&[u8]],
    bump: u8,
    program_id: &Pubkey,
) -> Result<Option<Pubkey>, ProgramError> {
    if seeds.len() > MAX_SEEDS {
        return Err(ProgramError::InvalidPda);
    }
    let mut parts: [&[u8]; MAX_HASH_PARTS] = [&[]; MAX_HASH_PARTS];
    parts[..seeds.len()].copy_from_slice(seeds);
    let bump = [bump];
    parts[seeds.len()] = &bump;
    parts[seeds.len() + 1] = program_id;
    parts[seeds.len() + 2] = PDA_MARKER;
    let mut hash = [0u8; 32];
    if !sha256(&parts[..seeds.len() + 3], &mut hash) {
        return Err(ProgramError::SyscallFailed);
    }
    match is_on_curve(&hash).ok_or(ProgramError::SyscallFailed)? {
        true => Ok(None),
        false => Ok(Some(hash)),
    }
}

/// True when no bump above `bump` gives a program address of `seeds`: then `bump`, if it gives
/// one, is the canonical bump.
pub fn is_highest_bump(seeds: &[&[u8]], bump: u8, program_id: &Pubkey) -> Result<bool, ProgramError> {
    for higher in (bump as u16 + 1)..=u8::MAX as u16 {
        if program_address(seeds, higher as u8, program_id)?.is_some() {
            return Ok(false);
        }
    }
    Ok(true)
}
