//! `attest_batch`: records a Merkle commitment to 1..=100 actions, signed by the agent, in one
//! transaction. The leaves follow in `publish_batch_leaves`.
//! Data: [4, item_count, action_types, batch_bump, merkle_root(32)]

use crate::checks::{
    expect_instructions_sysvar, expect_pda, expect_signer, expect_system_program, expect_writable,
    is_uninitialized,
};
use crate::cpi::{create_pda_account, NewPda};
use crate::ed25519::{verified_signature, ExpectedSignature};
use crate::error::{ProgramError, ProgramResult};
use crate::input::Input;
use crate::instructions::{expect_active, expect_credential, expect_schema, hash_at, load_operated_agent, now};
use crate::message::batch_message;
use crate::state::attestation::SasAddresses;
use crate::state::batch::{self, BatchCommit, BATCH_SEED, MAX_BATCH_ITEMS};
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
    let [operator, agent_account, batch_account, credential, schema, sysvar, system] =
        input.accounts::<7>().ok_or(ProgramError::NotEnoughAccounts)?;
    let program_id = input.program_id;
    expect_signer(&operator)?;
    for account in [&operator, &agent_account, &batch_account] {
        expect_writable(account)?;
    }
    let mut agent = load_operated_agent(&agent_account, &operator, program_id)?;
    expect_active(&agent)?;
    if action_types & !agent.policy() != 0 {
        return Err(ProgramError::ActionTypeNotAllowed);
    }
    expect_credential(&credential, program_id)?;
    expect_schema(&schema, &BATCH_SCHEMA, credential.key(), program_id)?;
    expect_instructions_sysvar(&sysvar)?;
    expect_system_program(&system)?;

    let agent_key = agent.agent();
    let message = batch_message(program_id, &agent_key, item_count, action_types, merkle_root);
    let expected = ExpectedSignature { sysvar: sysvar.data(), signer: &agent_key, message: &message };
    let agent_signature = verified_signature(&expected)?;

    let seeds: [&[u8]; 4] = [BATCH_SEED, &agent_key, merkle_root, &[bump]];
    expect_pda(&batch_account, &seeds, program_id)?;
    if !is_uninitialized(&batch_account) {
        return Err(ProgramError::DuplicateBatch);
    }
    let clock = now()?;
    create_pda_account(&NewPda {
        payer: &operator,
        account: &batch_account,
        system_program: &system,
        space: batch::account_size(item_count),
        owner: program_id,
        seeds: &seeds,
    })?;
    let commit = BatchCommit {
        merkle_root,
        item_count,
        action_types,
        agent_signature: &agent_signature,
        operator: operator.key(),
        timestamp: clock.unix_timestamp,
        slot: clock.slot,
    };
    let addresses = SasAddresses { credential: credential.key(), schema: schema.key(), agent: &agent_key };
    batch::write(batch_account.data_mut(), &addresses, &commit)?;
    agent.record_batch(item_count, clock.unix_timestamp)
}
