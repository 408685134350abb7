//! What `attest` and `attest_batch` share: the seven accounts, their checks, the agent's verified
//! signature, and creating the record at its PDA.
//!
//! A record that already exists is refused as a duplicate before the agent's status and policy are
//! looked at: a signed action sent again after it was recorded (a resend whose answer was lost) is
//! always answered as a duplicate, so any other refusal means the record was not on the ledger the
//! transaction ran against.

use crate::checks::{
    expect_canonical_pda, expect_instructions_sysvar, expect_signer, expect_system_program, expect_writable,
    is_uninitialized,
};
use crate::cpi::{create_pda_account, NewPda};
use crate::ed25519::{verified_signature, ExpectedSignature};
use crate::error::ProgramError;
use crate::input::{Account, Input};
use crate::instructions::{expect_active, expect_credential, expect_schema, load_operated_agent};
use crate::state::agent::AgentAccount;
use crate::state::attestation::SasAddresses;
use crate::state::schema::SchemaSpec;
use crate::Pubkey;

/// operator (signer, writable: pays), agent account (w), record (w), credential, schema,
/// instructions sysvar, system program; the agent operated by the operator.
pub(crate) struct Recording<'a> {
    pub operator: Account,
    pub record: Account,
    pub credential: Account,
    pub schema: Account,
    pub sysvar: Account,
    pub system: Account,
    pub agent: AgentAccount<'a>,
    pub agent_key: Pubkey,
}

pub(crate) fn load<'a>(input: &Input<'a>, schema_spec: &SchemaSpec) -> Result<Recording<'a>, ProgramError> {
    let [operator, agent_account, record, credential, schema, sysvar, system] =
        input.accounts::<7>().ok_or(ProgramError::NotEnoughAccounts)?;
    let program_id = input.program_id;
    expect_signer(&operator)?;
    for account in [&operator, &agent_account, &record] {
        expect_writable(account)?;
    }
    let agent = load_operated_agent(&agent_account, &operator, program_id)?;
    expect_credential(&credential, program_id)?;
    expect_schema(&schema, schema_spec, credential.key(), program_id)?;
    expect_instructions_sysvar(&sysvar)?;
    expect_system_program(&system)?;
    let agent_key = agent.agent();
    Ok(Recording { operator, record, credential, schema, sysvar, system, agent, agent_key })
}

impl Recording<'_> {
    /// The agent's signature over `message`, as verified by the precompile instruction before ours.
    pub fn verified_signature(&self, message: &[u8]) -> Result<[u8; 64], ProgramError> {
        let expected = ExpectedSignature { sysvar: self.sysvar.data(), signer: &self.agent_key, message };
        verified_signature(&expected)
    }

    /// The record's address is the canonical PDA of `seeds` (bump last), so one signed message is
    /// recorded at one address; `duplicate` when a record is there already.
    pub fn expect_new_record(
        &self,
        seeds: &[&[u8]],
        duplicate: ProgramError,
        program_id: &Pubkey,
    ) -> Result<(), ProgramError> {
        expect_canonical_pda(&self.record, seeds, program_id)?;
        if !is_uninitialized(&self.record) {
            return Err(duplicate);
        }
        Ok(())
    }

    /// The agent is active and its policy allows every type of `action_types` (a mask).
    pub fn expect_allowed(&self, action_types: u8) -> Result<(), ProgramError> {
        expect_active(&self.agent)?;
        if action_types & !self.agent.policy() != 0 {
            return Err(ProgramError::ActionTypeNotAllowed);
        }
        Ok(())
    }

    /// Creates the record at the PDA of `seeds` that `expect_new_record` checked.
    pub fn create_record(
        &self,
        seeds: &[&[u8]],
        space: usize,
        program_id: &Pubkey,
    ) -> Result<(), ProgramError> {
        create_pda_account(&NewPda {
            payer: &self.operator,
            account: &self.record,
            system_program: &self.system,
            space,
            owner: program_id,
            seeds,
        })
    }

    pub fn sas_addresses(&self) -> SasAddresses<'_> {
        SasAddresses { credential: self.credential.key(), schema: self.schema.key(), agent: &self.agent_key }
    }
}
