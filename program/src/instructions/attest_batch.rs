//! `attest_batch`: records a Merkle commitment to 1..=100 actions, signed by the agent, in one
//! transaction. The leaves follow in `publish_batch_leaves`. The seeds leave out `item_count`: the
//! root already binds it (RFC 6962 leaves and nodes hash different prefixes), so a commit that
//! names a wrong count can never be completed, and the agent's first commit of a root owns it.
//! Data: [4, item_count, action_types, batch_bump, merkle_root(32)]

use crate::error::{ProgramError, ProgramResult};
use crate::input::Input;
use crate::instructions::{hash_at, now, recording};
use crate::message::batch_message;
use crate::state::batch::{self, BatchCommit, BATCH_SEED, MAX_BATCH_ITEMS, PENDING_SIZE};
use crate::state::is_valid_action_mask;
use crate::state::schema::BATCH_SCHEMA;

const DATA_LEN: usize = 36;

pub fn process(input: &Input) -> ProgramResult {
    let data = input.data;
    if data.len() != DATA_LEN {
        return Err(ProgramError::InvalidInstructionData);
    }
    let (item_count, action_types, bump) = (data[1], data[2], data[3]);
    let merkle_root = hash_at(data, 4)?;
    if item_count == 0 || item_count > MAX_BATCH_ITEMS {
        return Err(ProgramError::InvalidBatchSize);
    }
    if !is_valid_action_mask(action_types) {
        return Err(ProgramError::InvalidActionType);
    }
    let mut rec = recording::load(input, &BATCH_SCHEMA)?;
    let program_id = input.program_id;
    let agent_key = rec.agent_key;
    let seeds: [&[u8]; 4] = [BATCH_SEED, &agent_key, merkle_root, &[bump]];
    rec.expect_new_record(&seeds, ProgramError::DuplicateBatch, program_id)?;
    rec.expect_allowed(action_types)?;
    let message = batch_message(program_id, &agent_key, item_count, action_types, merkle_root);
    let agent_signature = rec.verified_signature(&message)?;
    rec.create_record(&seeds, PENDING_SIZE, program_id)?;
    let clock = now()?;
    let commit = BatchCommit {
        merkle_root,
        item_count,
        action_types,
        agent_signature: &agent_signature,
        operator: rec.operator.key(),
        timestamp: clock.unix_timestamp,
        slot: clock.slot,
    };
    batch::write(rec.record.data_mut(), &rec.sas_addresses(), &commit)?;
    rec.agent.record_batch(item_count, clock.unix_timestamp)
}
