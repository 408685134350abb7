//! Account checks shared by every instruction. Each failure logs the offending key.

use crate::error::ProgramError;
use crate::input::Account;
use crate::pda::{is_highest_bump, program_address};
use crate::syscalls::{log, log_pubkey};
use crate::Pubkey;

pub const SYSTEM_PROGRAM_ID: Pubkey = [0; 32];
/// Sysvar1nstructions1111111111111111111111111
pub const INSTRUCTIONS_SYSVAR_ID: Pubkey = [
    6, 167, 213, 23, 24, 123, 209, 102, 53, 218, 212, 4, 85, 253, 194, 192, 193, 36, 198, 143, 33, 86, 117,
    165, 219, 186, 203, 95, 8, 0, 0, 0,
];
/// BPFLoaderUpgradeab1e11111111111111111111111
pub const UPGRADEABLE_LOADER_ID: Pubkey = [
    2, 168, 246, 145, 78, 136, 161, 176, 226, 16, 21, 62, 247, 99, 174, 43, 0, 194, 185, 61, 22, 193, 36,
    210, 192, 83, 122, 16, 4, 128, 0, 0,
];
/// Ed25519SigVerify111111111111111111111111111
pub const ED25519_PROGRAM_ID: Pubkey = [
    3, 125, 70, 214, 124, 147, 251, 190, 18, 249, 66, 143, 131, 141, 64, 255, 5, 112, 116, 73, 39, 244, 138,
    100, 252, 202, 112, 68, 128, 0, 0, 0,
];

fn fail(reason: &str, key: &Pubkey, error: ProgramError) -> ProgramError {
    log(reason);
    log_pubkey(key);
    error
}

pub fn expect_signer(account: &Account) -> Result<(), ProgramError> {
    if account.is_signer() {
        Ok(())
    } else {
        Err(fail("abas: account must sign", account.key(), ProgramError::MissingRequiredSignature))
    }
}

pub fn expect_writable(account: &Account) -> Result<(), ProgramError> {
    if account.is_writable() {
        Ok(())
    } else {
        Err(fail("abas: account must be writable", account.key(), ProgramError::AccountNotWritable))
    }
}

pub fn expect_owned_by(account: &Account, program_id: &Pubkey) -> Result<(), ProgramError> {
    if account.owner() == program_id {
        Ok(())
    } else {
        Err(fail("abas: account not owned by the program", account.key(), ProgramError::InvalidAccountOwner))
    }
}

pub fn expect_system_program(account: &Account) -> Result<(), ProgramError> {
    if account.key() == &SYSTEM_PROGRAM_ID && account.is_executable() {
        Ok(())
    } else {
        Err(fail("abas: not the system program", account.key(), ProgramError::InvalidSystemProgram))
    }
}

pub fn expect_instructions_sysvar(account: &Account) -> Result<(), ProgramError> {
    if account.key() == &INSTRUCTIONS_SYSVAR_ID {
        Ok(())
    } else {
        Err(fail("abas: not the instructions sysvar", account.key(), ProgramError::InvalidInstructionsSysvar))
    }
}

/// The account must be at the canonical program address of `seeds` (bump last) under `owner`: the
/// bump is the client's hint, and the program proves that it is the canonical one (see `pda`).
/// Not inlined: one copy serves the six kinds of PDA.
#[inline(never)]
pub fn expect_canonical_pda(account: &Account, seeds: &[&[u8]], owner: &Pubkey) -> Result<(), ProgramError> {
    let (bump, base) = match seeds.split_last() {
        Some((&&[bump], base)) => (bump, base),
        _ => return Err(ProgramError::InvalidPda),
    };
    if program_address(base, bump, owner)?.as_ref() != Some(account.key()) {
        return Err(fail("abas: address does not match its seeds", account.key(), ProgramError::InvalidPda));
    }
    if !is_highest_bump(base, bump, owner)? {
        return Err(fail(
            "abas: address is not at the canonical bump",
            account.key(),
            ProgramError::NonCanonicalBump,
        ));
    }
    Ok(())
}

/// An account the program is about to create must not hold data or belong to anyone yet.
pub fn is_uninitialized(account: &Account) -> bool {
    account.data_len() == 0 && account.owner() == &SYSTEM_PROGRAM_ID
}
