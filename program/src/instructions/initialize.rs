//! `initialize`: creates the Credential and the two Schemas, once, at their canonical addresses.
//! Only the program's upgrade authority may run it, so nobody can front-run a deployment with
//! other bumps or pay for it first.
//! Data: [0, credential_bump, attestation_schema_bump, batch_schema_bump, program_data_bump]

use crate::checks::{
    expect_canonical_pda, expect_signer, expect_system_program, expect_writable, is_uninitialized,
    UPGRADEABLE_LOADER_ID,
};
use crate::cpi::{create_pda_account, NewPda};
use crate::error::{ProgramError, ProgramResult};
use crate::input::{Account, Input};
use crate::state::credential::{self, CREDENTIAL_SEED, CREDENTIAL_SIZE};
use crate::state::schema::{ATTESTATION_SCHEMA, BATCH_SCHEMA, SCHEMA_SEED};
use crate::syscalls::{log, log_pubkey};
use crate::Pubkey;

pub fn process(input: &Input) -> ProgramResult {
    let &[_, credential_bump, attestation_bump, batch_bump, program_data_bump] = input.data else {
        return Err(ProgramError::InvalidInstructionData);
    };
    let [authority, credential, attestation_schema, batch_schema, program_data, system] =
        input.accounts::<6>().ok_or(ProgramError::NotEnoughAccounts)?;
    let program_id = input.program_id;
    expect_signer(&authority)?;
    for account in [&authority, &credential, &attestation_schema, &batch_schema] {
        expect_writable(account)?;
    }
    expect_system_program(&system)?;
    expect_upgrade_authority(&program_data, program_data_bump, &authority, program_id)?;
    let credential_seeds: [&[u8]; 2] = [CREDENTIAL_SEED, &[credential_bump]];
    expect_canonical_pda(&credential, &credential_seeds, program_id)?;
    if !is_uninitialized(&credential) {
        return Err(ProgramError::AlreadyInitialized);
    }
    create_pda_account(&NewPda {
        payer: &authority,
        account: &credential,
        system_program: &system,
        space: CREDENTIAL_SIZE,
        owner: program_id,
        seeds: &credential_seeds,
    })?;
    credential::write(credential.data_mut(), program_id)?;

    let schemas = [
        (&attestation_schema, &ATTESTATION_SCHEMA, attestation_bump),
        (&batch_schema, &BATCH_SCHEMA, batch_bump),
    ];
    for (schema, spec, bump) in schemas {
        let seeds: [&[u8]; 5] = [SCHEMA_SEED, credential.key(), spec.name, &[spec.version], &[bump]];
        expect_canonical_pda(schema, &seeds, program_id)?;
        if !is_uninitialized(schema) {
            return Err(ProgramError::AlreadyInitialized);
        }
        create_pda_account(&NewPda {
            payer: &authority,
            account: schema,
            system_program: &system,
            space: spec.size(),
            owner: program_id,
            seeds: &seeds,
        })?;
        spec.write(schema.data_mut(), credential.key())?;
    }
    Ok(())
}

// The Upgradeable Loader's ProgramData account (bincode): u32 tag 3, u64 deployment slot, then the
// upgrade authority as an Option<Pubkey> (1-byte tag, 32 bytes), then the program.
const PROGRAM_DATA_TAG: [u8; 4] = [3, 0, 0, 0];
const AUTHORITY_TAG_AT: usize = 12;
const AUTHORITY_AT: usize = 13;

/// `program_data` must be this program's ProgramData (the loader's canonical address of
/// `[program id]`), and `authority` its upgrade authority.
fn expect_upgrade_authority(
    program_data: &Account,
    bump: u8,
    authority: &Account,
    program_id: &Pubkey,
) -> ProgramResult {
    expect_canonical_pda(program_data, &[program_id, &[bump]], &UPGRADEABLE_LOADER_ID)?;
    let data = program_data.data();
    if program_data.owner() != &UPGRADEABLE_LOADER_ID
        || data.len() < AUTHORITY_AT + 32
        || data[..4] != PROGRAM_DATA_TAG
    {
        log("abas: not the program's ProgramData account");
        log_pubkey(program_data.key());
        return Err(ProgramError::InvalidProgramData);
    }
    if data[AUTHORITY_TAG_AT] != 1 || &data[AUTHORITY_AT..AUTHORITY_AT + 32] != authority.key() {
        log("abas: initialize must be signed by the program's upgrade authority");
        log_pubkey(authority.key());
        return Err(ProgramError::NotUpgradeAuthority);
    }
    Ok(())
}
