//! Calls into the system program to create the program's accounts at their PDAs, and giving back
//! the rent of an account that shrinks.

use crate::error::ProgramError;
use crate::input::Account;
use crate::syscalls::{
    minimum_balance, sol_invoke_signed_c, SolAccountInfo, SolAccountMeta, SolBytes, SolInstruction,
    SolSignerSeeds, EMPTY_BYTES,
};
use crate::Pubkey;

const CREATE_ACCOUNT: u32 = 0;
const ASSIGN: u32 = 1;
const TRANSFER: u32 = 2;
const ALLOCATE: u32 = 8;

fn account_info(account: &Account) -> SolAccountInfo {
    SolAccountInfo {
        key: account.key(),
        lamports: account.lamports_ptr(),
        data_len: account.data_len() as u64,
        data: account.data_ptr(),
        owner: account.owner(),
        rent_epoch: 0,
        is_signer: account.is_signer(),
        is_writable: account.is_writable(),
        executable: false,
    }
}

fn meta(account: &Account, is_signer: bool) -> SolAccountMeta {
    SolAccountMeta { pubkey: account.key(), is_writable: true, is_signer }
}

/// An account to create at a PDA of this program.
pub struct NewPda<'a> {
    pub payer: &'a Account,
    pub account: &'a Account,
    pub system_program: &'a Account,
    pub space: usize,
    pub owner: &'a Pubkey,
    /// The PDA's seeds, bump last; the program signs for the account with them.
    pub seeds: &'a [&'a [u8]],
}

/// Invokes the system program with one or two writable accounts, the last one being the new
/// account, signed for through its seeds.
fn invoke_system(new: &NewPda, accounts: &[&Account], data: &[u8]) -> Result<(), ProgramError> {
    let NewPda { system_program, seeds, .. } = *new;
    let (metas, infos, count) = match accounts {
        [only] => ([meta(only, true), meta(only, true)], [account_info(only), account_info(only)], 1),
        [from, to] => ([meta(from, true), meta(to, true)], [account_info(from), account_info(to)], 2),
        _ => return Err(ProgramError::CrossProgramInvocationFailed),
    };
    let instruction = SolInstruction {
        program_id: system_program.key(),
        accounts: metas.as_ptr(),
        account_len: count as u64,
        data: data.as_ptr(),
        data_len: data.len() as u64,
    };
    let mut seed_bytes = [EMPTY_BYTES; 5];
    if seeds.len() > seed_bytes.len() {
        return Err(ProgramError::CrossProgramInvocationFailed);
    }
    for (slot, seed) in seed_bytes.iter_mut().zip(seeds) {
        *slot = SolBytes { addr: seed.as_ptr(), len: seed.len() as u64 };
    }
    let signer = SolSignerSeeds { addr: seed_bytes.as_ptr(), len: seeds.len() as u64 };
    // SAFETY: every pointer refers to a live local or to the input region for the whole call.
    let rc = unsafe { sol_invoke_signed_c(&instruction, infos.as_ptr(), count as u64, &signer, 1) };
    if rc == 0 {
        Ok(())
    } else {
        Err(ProgramError::CrossProgramInvocationFailed)
    }
}

/// Creates `account` (a PDA of this program, signed for by `seeds`) with `space` bytes, rent-exempt,
/// paid by `payer`. An address someone already sent lamports to is topped up, allocated and
/// assigned instead, so nobody can block an attestation by funding its address first.
pub fn create_pda_account(new: &NewPda) -> Result<(), ProgramError> {
    let NewPda { payer, account, owner, .. } = *new;
    let space = new.space as u64;
    let required = minimum_balance(space).ok_or(ProgramError::SyscallFailed)?;
    let current = account.lamports();
    if current == 0 {
        let mut data = [0u8; 52];
        data[0..4].copy_from_slice(&CREATE_ACCOUNT.to_le_bytes());
        data[4..12].copy_from_slice(&required.to_le_bytes());
        data[12..20].copy_from_slice(&space.to_le_bytes());
        data[20..52].copy_from_slice(owner);
        return invoke_system(new, &[payer, account], &data);
    }
    if current < required {
        let mut data = [0u8; 12];
        data[0..4].copy_from_slice(&TRANSFER.to_le_bytes());
        data[4..12].copy_from_slice(&(required - current).to_le_bytes());
        invoke_system(new, &[payer, account], &data)?;
    }
    let mut allocate = [0u8; 12];
    allocate[0..4].copy_from_slice(&ALLOCATE.to_le_bytes());
    allocate[4..12].copy_from_slice(&space.to_le_bytes());
    invoke_system(new, &[account], &allocate)?;
    let mut assign = [0u8; 36];
    assign[0..4].copy_from_slice(&ASSIGN.to_le_bytes());
    assign[4..36].copy_from_slice(owner);
    invoke_system(new, &[account], &assign)
}

/// Shrinks `account` (the program's own, writable) to `space` bytes and moves the lamports it no
/// longer needs to stay rent-exempt to `recipient` (writable).
pub fn shrink_and_refund(account: &Account, space: usize, recipient: &Account) -> Result<(), ProgramError> {
    let required = minimum_balance(space as u64).ok_or(ProgramError::SyscallFailed)?;
    let refund = account.lamports().checked_sub(required).ok_or(ProgramError::ArithmeticOverflow)?;
    let credited = recipient.lamports().checked_add(refund).ok_or(ProgramError::ArithmeticOverflow)?;
    if !account.shrink(space) {
        return Err(ProgramError::InvalidAccountData);
    }
    account.set_lamports(required);
    recipient.set_lamports(credited);
    Ok(())
}
