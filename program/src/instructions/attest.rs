//! `attest`: records one BehaviorAttestation, signed by the agent through the Ed25519 precompile
//! instruction right before this one, timestamped by the ledger's clock.
//! Data: [3, action_type, privacy_mode, attestation_bump, stored_hash(32)]

use crate::checks::{
    expect_instructions_sysvar, expect_pda, expect_signer, expect_system_program, expect_writable,
    is_uninitialized,
};
use crate::cpi::{create_pda_account, NewPda};
use crate::ed25519::{verified_signature, ExpectedSignature};
use crate::error::{ProgramError, ProgramResult};
use crate::input::Input;
use crate::instructions::{expect_active, expect_credential, expect_schema, hash_at, load_operated_agent, now};
use crate::message::attest_message;
use crate::state::attestation::{self, Attestation, SasAddresses, ATTESTATION_SEED, ATTESTATION_SIZE};
use crate::state::schema::ATTESTATION_SCHEMA;
use crate::state::ACTION_TYPE_COUNT;

const DATA_LEN: usize = 36;

pub fn process(input: &Input) -> ProgramResult {
    let data = input.data;
    if data.len() != DATA_LEN {
        return Err(ProgramError::InvalidInstructionData);
    }
    let (action_type, privacy_mode, bump) = (data[1], data[2], data[3]);
    let stored_hash = hash_at(data, 4)?;
    if action_type >= ACTION_TYPE_COUNT {
        return Err(ProgramError::InvalidActionType);
    }
    if privacy_mode > 1 {
        return Err(ProgramError::InvalidPrivacyFlag);
    }
    let [operator, agent_account, attestation, credential, schema, sysvar, system] =
        input.accounts::<7>().ok_or(ProgramError::NotEnoughAccounts)?;
    let program_id = input.program_id;
    expect_signer(&operator)?;
    for account in [&operator, &agent_account, &attestation] {
        expect_writable(account)?;
    }
    let mut agent = load_operated_agent(&agent_account, &operator, program_id)?;
    expect_active(&agent)?;
    if agent.policy() & (1 << action_type) == 0 {
        return Err(ProgramError::ActionTypeNotAllowed);
    }
    expect_credential(&credential, program_id)?;
    expect_schema(&schema, &ATTESTATION_SCHEMA, credential.key(), program_id)?;
    expect_instructions_sysvar(&sysvar)?;
    expect_system_program(&system)?;

    let agent_key = agent.agent();
    let message = attest_message(program_id, &agent_key, action_type, privacy_mode, stored_hash);
    let expected = ExpectedSignature { sysvar: sysvar.data(), signer: &agent_key, message: &message };
    let agent_signature = verified_signature(&expected)?;

    let seeds: [&[u8]; 4] = [ATTESTATION_SEED, &agent_key, stored_hash, &[bump]];
    expect_pda(&attestation, &seeds, program_id)?;
    if !is_uninitialized(&attestation) {
        return Err(ProgramError::DuplicateAttestation);
    }
    let clock = now()?;
    create_pda_account(&NewPda {
        payer: &operator,
        account: &attestation,
        system_program: &system,
        space: ATTESTATION_SIZE,
        owner: program_id,
        seeds: &seeds,
    })?;
    let record = Attestation {
        action_type,
        privacy_mode,
        stored_hash,
        agent_signature: &agent_signature,
        operator: operator.key(),
        timestamp: clock.unix_timestamp,
        slot: clock.slot,
    };
    let addresses = SasAddresses { credential: credential.key(), schema: schema.key(), agent: &agent_key };
    attestation::write(attestation.data_mut(), &addresses, &record)?;
    agent.record_attestation(clock.unix_timestamp)
}
