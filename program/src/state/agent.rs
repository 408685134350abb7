//! The Agent account, at PDA ["agent", agent key]. Fixed 128-byte layout (docs/program.md).

use crate::error::ProgramError;
use crate::state::discriminator;
use crate::Pubkey;

pub const AGENT_SEED: &[u8] = b"agent";
pub const AGENT_ACCOUNT_SIZE: usize = 128;
const LAYOUT_VERSION: u8 = 1;

pub const STATUS_ACTIVE: u8 = 0;
pub const STATUS_SUSPENDED: u8 = 1;
pub const STATUS_REVOKED: u8 = 2;

const BUMP: usize = 2;
const STATUS: usize = 3;
const POLICY: usize = 4;
const OPERATOR: usize = 8;
const AGENT: usize = 40;
const REGISTERED_AT: usize = 72;
const REGISTERED_SLOT: usize = 80;
const UPDATED_AT: usize = 88;
const ATTESTATION_COUNT: usize = 96;
const BATCH_COUNT: usize = 104;
const BATCH_ITEM_COUNT: usize = 112;
const LAST_ATTESTED_AT: usize = 120;

/// A checked view over an Agent account's data.
pub struct AgentAccount<'a> {
    data: &'a mut [u8],
}

impl<'a> AgentAccount<'a> {
    /// Views existing data; fails unless it is exactly an Agent account.
    pub fn load(data: &'a mut [u8]) -> Result<Self, ProgramError> {
        if data.len() != AGENT_ACCOUNT_SIZE || data[0] != discriminator::AGENT || data[1] != LAYOUT_VERSION {
            return Err(ProgramError::InvalidAccountData);
        }
        Ok(Self { data })
    }

    /// Writes a new Agent account into freshly allocated data.
    #[allow(clippy::too_many_arguments)]
    pub fn init(
        data: &'a mut [u8],
        bump: u8,
        policy: u8,
        operator: &Pubkey,
        agent: &Pubkey,
        now: i64,
        slot: u64,
    ) -> Result<Self, ProgramError> {
        if data.len() != AGENT_ACCOUNT_SIZE {
            return Err(ProgramError::InvalidAccountData);
        }
        data.fill(0);
        data[0] = discriminator::AGENT;
        data[1] = LAYOUT_VERSION;
        data[BUMP] = bump;
        data[STATUS] = STATUS_ACTIVE;
        data[POLICY] = policy;
        data[OPERATOR..OPERATOR + 32].copy_from_slice(operator);
        data[AGENT..AGENT + 32].copy_from_slice(agent);
        let mut account = Self { data };
        account.set_i64(REGISTERED_AT, now);
        account.set_u64(REGISTERED_SLOT, slot);
        account.set_i64(UPDATED_AT, now);
        Ok(account)
    }

    fn u64_at(&self, at: usize) -> u64 {
        let mut raw = [0u8; 8];
        raw.copy_from_slice(&self.data[at..at + 8]);
        u64::from_le_bytes(raw)
    }

    fn set_u64(&mut self, at: usize, value: u64) {
        self.data[at..at + 8].copy_from_slice(&value.to_le_bytes());
    }

    fn set_i64(&mut self, at: usize, value: i64) {
        self.data[at..at + 8].copy_from_slice(&value.to_le_bytes());
    }

    pub fn status(&self) -> u8 {
        self.data[STATUS]
    }

    pub fn policy(&self) -> u8 {
        self.data[POLICY]
    }

    pub fn operator(&self) -> &[u8] {
        &self.data[OPERATOR..OPERATOR + 32]
    }

    pub fn agent(&self) -> Pubkey {
        let mut key = [0u8; 32];
        key.copy_from_slice(&self.data[AGENT..AGENT + 32]);
        key
    }

    pub fn update(&mut self, status: u8, policy: u8, now: i64) {
        self.data[STATUS] = status;
        self.data[POLICY] = policy;
        self.set_i64(UPDATED_AT, now);
    }

    pub fn record_attestation(&mut self, now: i64) -> Result<(), ProgramError> {
        let count = self.u64_at(ATTESTATION_COUNT).checked_add(1).ok_or(ProgramError::ArithmeticOverflow)?;
        self.set_u64(ATTESTATION_COUNT, count);
        self.set_i64(LAST_ATTESTED_AT, now);
        Ok(())
    }

    pub fn record_batch(&mut self, items: u8, now: i64) -> Result<(), ProgramError> {
        let batches = self.u64_at(BATCH_COUNT).checked_add(1).ok_or(ProgramError::ArithmeticOverflow)?;
        let total = self
            .u64_at(BATCH_ITEM_COUNT)
            .checked_add(items as u64)
            .ok_or(ProgramError::ArithmeticOverflow)?;
        self.set_u64(BATCH_COUNT, batches);
        self.set_u64(BATCH_ITEM_COUNT, total);
        self.set_i64(LAST_ATTESTED_AT, now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_counts() {
        let mut data = [0u8; AGENT_ACCOUNT_SIZE];
        let mut agent =
            AgentAccount::init(&mut data, 254, 0b0101, &[1; 32], &[2; 32], 1_700_000_000, 9).unwrap();
        agent.record_attestation(1_700_000_001).unwrap();
        agent.record_batch(100, 1_700_000_002).unwrap();
        agent.update(STATUS_SUSPENDED, 0b0001, 1_700_000_003);
        assert_eq!((agent.status(), agent.policy(), agent.agent()), (STATUS_SUSPENDED, 1, [2; 32]));
        assert_eq!(data[0], 16);
        assert_eq!(data[96], 1);
        assert_eq!(data[112], 100);
        assert_eq!(&data[120..128], &1_700_000_002i64.to_le_bytes());
    }

    #[test]
    fn load_rejects_anything_else() {
        assert_eq!(AgentAccount::load(&mut [16u8; 127]).err(), Some(ProgramError::InvalidAccountData));
        let mut wrong = [0u8; AGENT_ACCOUNT_SIZE];
        wrong[0] = 2;
        assert_eq!(AgentAccount::load(&mut wrong).err(), Some(ProgramError::InvalidAccountData));
    }
}
