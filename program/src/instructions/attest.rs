//! `attest`: records one BehaviorAttestation, signed by the agent through the Ed25519 precompile
//! instruction right before this one, timestamped by the ledger's clock.
//! Data: [3, action_type, privacy_mode, attestation_bump, stored_hash(32)]

use crate::error::{ProgramError, ProgramResult};
use crate::input::Input;
use crate::instructions::{hash_at, now, recording};
use crate::message::attest_message;
use crate::state::attestation::{self, Attestation, ATTESTATION_SEED, ATTESTATION_SIZE};
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
    let mut rec = recording::load(input, &ATTESTATION_SCHEMA)?;
    let program_id = input.program_id;
    let agent_key = rec.agent_key;
    let seeds: [&[u8]; 4] = [ATTESTATION_SEED, &agent_key, stored_hash, &[bump]];
    rec.expect_new_record(&seeds, ProgramError::DuplicateAttestation, program_id)?;
    rec.expect_allowed(1 << action_type)?;
    let message = attest_message(program_id, &agent_key, action_type, privacy_mode, stored_hash);
    let agent_signature = rec.verified_signature(&message)?;
    rec.create_record(&seeds, ATTESTATION_SIZE, program_id)?;
    let clock = now()?;
    let record = Attestation {
        action_type,
        privacy_mode,
        stored_hash,
        agent_signature: &agent_signature,
        operator: rec.operator.key(),
        timestamp: clock.unix_timestamp,
        slot: clock.slot,
    };
    attestation::write(rec.record.data_mut(), &rec.sas_addresses(), &record)?;
    rec.agent.record_attestation(clock.unix_timestamp)
}
