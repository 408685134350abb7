//! `update_agent`: the operator changes the agent's status or policy. Revoked is final.
//! Data: [2, status, allowed_action_types]

use crate::checks::{expect_signer, expect_writable};
use crate::error::{ProgramError, ProgramResult};
use crate::input::Input;
use crate::instructions::{load_operated_agent, now};
use crate::state::agent::STATUS_REVOKED;
use crate::state::is_valid_action_mask;

pub fn process(input: &Input) -> ProgramResult {
    let &[_, status, policy] = input.data else {
        return Err(ProgramError::InvalidInstructionData);
    };
    if status > STATUS_REVOKED {
        return Err(ProgramError::InvalidStatus);
    }
    if !is_valid_action_mask(policy) {
        return Err(ProgramError::InvalidPolicy);
    }
    let [operator, agent_account] = input.accounts::<2>().ok_or(ProgramError::NotEnoughAccounts)?;
    expect_signer(&operator)?;
    expect_writable(&agent_account)?;
    let mut agent = load_operated_agent(&agent_account, &operator, input.program_id)?;
    if agent.status() == STATUS_REVOKED {
        return Err(ProgramError::AgentRevoked);
    }
    agent.update(status, policy, now()?.unix_timestamp);
    Ok(())
}
