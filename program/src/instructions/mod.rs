//! One module per instruction, each with a `process` function; shared loading of the accounts
//! several instructions read lives here.

pub mod attest;
pub mod attest_batch;
pub mod initialize;
pub mod publish_batch_leaves;
pub mod recording;
pub mod register_agent;
pub mod update_agent;

use crate::checks::expect_owned_by;
use crate::error::ProgramError;
use crate::input::Account;
use crate::state::agent::{AgentAccount, STATUS_ACTIVE, STATUS_REVOKED, STATUS_SUSPENDED};
use crate::state::credential::is_credential;
use crate::state::schema::SchemaSpec;
use crate::syscalls::{clock, log, log_pubkey, Clock};
use crate::Pubkey;

pub const DISCRIMINATOR_INITIALIZE: u8 = 0;
pub const DISCRIMINATOR_REGISTER_AGENT: u8 = 1;
pub const DISCRIMINATOR_UPDATE_AGENT: u8 = 2;
pub const DISCRIMINATOR_ATTEST: u8 = 3;
pub const DISCRIMINATOR_ATTEST_BATCH: u8 = 4;
pub const DISCRIMINATOR_PUBLISH_BATCH_LEAVES: u8 = 5;

/// The Agent account of `agent_account`, which `operator` must operate.
pub(crate) fn load_operated_agent<'a>(
    agent_account: &Account,
    operator: &Account,
    program_id: &Pubkey,
) -> Result<AgentAccount<'a>, ProgramError> {
    expect_owned_by(agent_account, program_id)?;
    let agent = AgentAccount::load(agent_account.data_mut())?;
    if agent.operator() != operator.key() {
        log("abas: signer is not the agent's operator");
        log_pubkey(operator.key());
        return Err(ProgramError::NotAgentOperator);
    }
    Ok(agent)
}

pub(crate) fn expect_active(agent: &AgentAccount) -> Result<(), ProgramError> {
    match agent.status() {
        STATUS_ACTIVE => Ok(()),
        STATUS_SUSPENDED => Err(ProgramError::AgentSuspended),
        STATUS_REVOKED => Err(ProgramError::AgentRevoked),
        _ => Err(ProgramError::InvalidAccountData),
    }
}

pub(crate) fn expect_credential(account: &Account, program_id: &Pubkey) -> Result<(), ProgramError> {
    if account.owner() == program_id && is_credential(account.data()) {
        return Ok(());
    }
    log("abas: not the program's credential");
    log_pubkey(account.key());
    Err(ProgramError::InvalidCredential)
}

pub(crate) fn expect_schema(
    account: &Account,
    spec: &SchemaSpec,
    credential: &Pubkey,
    program_id: &Pubkey,
) -> Result<(), ProgramError> {
    if account.owner() == program_id && spec.matches(account.data(), credential) {
        return Ok(());
    }
    log("abas: not the schema this instruction needs");
    log_pubkey(account.key());
    Err(ProgramError::InvalidSchema)
}

pub(crate) fn now() -> Result<Clock, ProgramError> {
    clock().ok_or(ProgramError::SyscallFailed)
}

/// A 32-byte field of instruction data.
pub(crate) fn hash_at(data: &[u8], at: usize) -> Result<&[u8; 32], ProgramError> {
    data.get(at..at + 32).and_then(|bytes| bytes.try_into().ok()).ok_or(ProgramError::InvalidInstructionData)
}
