//! `register_agent`: the operator and the agent both sign; creates the Agent account at the
//! canonical address of the agent key, so a key has exactly one Agent account, ever.
//! Data: [1, agent_bump, allowed_action_types]

use crate::checks::{
    expect_canonical_pda, expect_signer, expect_system_program, expect_writable, is_uninitialized,
};
use crate::cpi::{create_pda_account, NewPda};
use crate::error::{ProgramError, ProgramResult};
use crate::input::Input;
use crate::instructions::now;
use crate::state::agent::{AgentAccount, AGENT_ACCOUNT_SIZE, AGENT_SEED};
use crate::state::is_valid_action_mask;

pub fn process(input: &Input) -> ProgramResult {
    let &[_, bump, policy] = input.data else {
        return Err(ProgramError::InvalidInstructionData);
    };
    if !is_valid_action_mask(policy) {
        return Err(ProgramError::InvalidPolicy);
    }
    let [operator, agent, agent_account, system] =
        input.accounts::<4>().ok_or(ProgramError::NotEnoughAccounts)?;
    let program_id = input.program_id;
    expect_signer(&operator)?;
    expect_writable(&operator)?;
    expect_signer(&agent)?;
    expect_writable(&agent_account)?;
    expect_system_program(&system)?;
    let seeds: [&[u8]; 3] = [AGENT_SEED, agent.key(), &[bump]];
    expect_canonical_pda(&agent_account, &seeds, program_id)?;
    if !is_uninitialized(&agent_account) {
        return Err(ProgramError::AgentAlreadyRegistered);
    }
    let clock = now()?;
    create_pda_account(&NewPda {
        payer: &operator,
        account: &agent_account,
        system_program: &system,
        space: AGENT_ACCOUNT_SIZE,
        owner: program_id,
        seeds: &seeds,
    })?;
    AgentAccount::init(
        agent_account.data_mut(),
        bump,
        policy,
        operator.key(),
        agent.key(),
        clock.unix_timestamp,
        clock.slot,
    )?;
    Ok(())
}
