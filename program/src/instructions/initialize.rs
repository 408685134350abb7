//! `initialize`: creates the Credential and the two Schemas. Runs once; the content is fixed.
//! Data: [0, credential_bump, attestation_schema_bump, batch_schema_bump]

use crate::checks::{expect_pda, expect_signer, expect_system_program, expect_writable, is_uninitialized};
use crate::cpi::{create_pda_account, NewPda};
use crate::error::{ProgramError, ProgramResult};
use crate::input::Input;
use crate::state::credential::{self, CREDENTIAL_SEED, CREDENTIAL_SIZE};
use crate::state::schema::{ATTESTATION_SCHEMA, BATCH_SCHEMA, SCHEMA_SEED, SCHEMA_VERSION};

pub fn process(input: &Input) -> ProgramResult {
    let &[_, credential_bump, attestation_bump, batch_bump] = input.data else {
        return Err(ProgramError::InvalidInstructionData);
    };
    let [payer, credential, attestation_schema, batch_schema, system] =
        input.accounts::<5>().ok_or(ProgramError::NotEnoughAccounts)?;
    let program_id = input.program_id;
    expect_signer(&payer)?;
    for account in [&payer, &credential, &attestation_schema, &batch_schema] {
        expect_writable(account)?;
    }
    expect_system_program(&system)?;
    let credential_seeds: [&[u8]; 2] = [CREDENTIAL_SEED, &[credential_bump]];
    expect_pda(&credential, &credential_seeds, program_id)?;
    if !is_uninitialized(&credential) {
        return Err(ProgramError::AlreadyInitialized);
    }
    create_pda_account(&NewPda {
        payer: &payer,
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
        let seeds: [&[u8]; 5] = [SCHEMA_SEED, credential.key(), spec.name, &[SCHEMA_VERSION], &[bump]];
        expect_pda(schema, &seeds, program_id)?;
        if !is_uninitialized(schema) {
            return Err(ProgramError::AlreadyInitialized);
        }
        create_pda_account(&NewPda {
            payer: &payer,
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
