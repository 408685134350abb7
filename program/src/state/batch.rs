//! A batch attestation in SAS Attestation layout, at PDA ["batch", agent, Merkle root]. While its
//! leaves are being published it carries the Merkle frontier (`merkle::Frontier`); once the last
//! leaf reproduces the signed root the frontier is dropped and the account shrinks to its final
//! size, so no leaf byte is ever paid as rent. The leaves themselves live in the instruction data
//! of the `publish_batch_leaves` transactions.

use crate::error::ProgramError;
use crate::merkle::{Frontier, FRONTIER_SIZE};
use crate::state::attestation::{
    write_sas_header, write_sas_trailer, SasAddresses, SAS_HEADER_SIZE, SAS_TRAILER_SIZE,
};
use crate::state::discriminator;
use crate::writer::Writer;
use crate::Pubkey;

pub const BATCH_SEED: &[u8] = b"batch";
pub const MAX_BATCH_ITEMS: u8 = 100;

/// merkle_root, item_count, action_types, agent_signature, operator, timestamp, slot,
/// leaves_published, frontier (u32 length only; the frontier follows while leaves are pending)
const FIXED_DATA_SIZE: usize = (4 + 32) + 1 + 1 + (4 + 64) + (4 + 32) + 8 + 8 + 1 + 4;
/// While leaves are pending: the fixed fields and the frontier.
pub const PENDING_SIZE: usize = SAS_HEADER_SIZE + FIXED_DATA_SIZE + FRONTIER_SIZE + SAS_TRAILER_SIZE;
/// Once every leaf is published: the frontier is gone.
pub const COMPLETE_SIZE: usize = SAS_HEADER_SIZE + FIXED_DATA_SIZE + SAS_TRAILER_SIZE;

// Offsets in the account of the fields publish_batch_leaves reads or writes.
const SCHEMA: usize = 65;
const DATA_LEN: usize = SAS_HEADER_SIZE - 4;
const MERKLE_ROOT: usize = SAS_HEADER_SIZE + 4;
const ITEM_COUNT: usize = MERKLE_ROOT + 32;
const ACTION_TYPES: usize = ITEM_COUNT + 1;
const OPERATOR: usize = ACTION_TYPES + 1 + (4 + 64) + 4;
const LEAVES_PUBLISHED: usize = SAS_HEADER_SIZE + FIXED_DATA_SIZE - 5;
const FRONTIER_LEN: usize = LEAVES_PUBLISHED + 1;
const FRONTIER: usize = FRONTIER_LEN + 4;

pub struct BatchCommit<'a> {
    pub merkle_root: &'a [u8; 32],
    pub item_count: u8,
    pub action_types: u8,
    pub agent_signature: &'a [u8; 64],
    pub operator: &'a Pubkey,
    pub timestamp: i64,
    pub slot: u64,
}

/// Writes a new batch, its leaves all pending, into `PENDING_SIZE` bytes of zeros.
pub fn write(data: &mut [u8], addresses: &SasAddresses, b: &BatchCommit) -> Result<(), ProgramError> {
    let mut w = Writer::new(data);
    write_sas_header(&mut w, b.merkle_root, addresses, FIXED_DATA_SIZE + FRONTIER_SIZE)?;
    w.vec(b.merkle_root)?
        .u8(b.item_count)?
        .u8(b.action_types)?
        .vec(b.agent_signature)?
        .vec(b.operator)?
        .i64(b.timestamp)?
        .u64(b.slot)?
        .u8(0)?
        .u32(FRONTIER_SIZE as u32)?
        .skip(FRONTIER_SIZE)?;
    write_sas_trailer(&mut w, addresses.agent)
}

/// A checked view over an existing batch account.
pub struct BatchAccount<'a> {
    data: &'a mut [u8],
}

impl<'a> BatchAccount<'a> {
    /// Fails unless `data` is a batch attestation of `schema`, pending or complete, whose size and
    /// frontier length fit how many of its leaves are published.
    pub fn load(data: &'a mut [u8], schema: &Pubkey) -> Result<Self, ProgramError> {
        let fits = data.len() >= COMPLETE_SIZE
            && data[0] == discriminator::ATTESTATION
            && &data[SCHEMA..SCHEMA + 32] == schema
            && (1..=MAX_BATCH_ITEMS).contains(&data[ITEM_COUNT]);
        if !fits {
            return Err(ProgramError::InvalidAccountData);
        }
        let (published, count) = (data[LEAVES_PUBLISHED], data[ITEM_COUNT]);
        let frontier_len = u32::from_le_bytes([
            data[FRONTIER_LEN],
            data[FRONTIER_LEN + 1],
            data[FRONTIER_LEN + 2],
            data[FRONTIER_LEN + 3],
        ]) as usize;
        let pending = data.len() == PENDING_SIZE && frontier_len == FRONTIER_SIZE && published < count;
        let complete = data.len() == COMPLETE_SIZE && frontier_len == 0 && published == count;
        if !pending && !complete {
            return Err(ProgramError::InvalidAccountData);
        }
        Ok(Self { data })
    }

    pub fn merkle_root(&self) -> &[u8] {
        &self.data[MERKLE_ROOT..MERKLE_ROOT + 32]
    }

    pub fn item_count(&self) -> u8 {
        self.data[ITEM_COUNT]
    }

    pub fn action_types(&self) -> u8 {
        self.data[ACTION_TYPES]
    }

    /// The operator that committed the batch and paid for it.
    pub fn operator(&self) -> &[u8] {
        &self.data[OPERATOR..OPERATOR + 32]
    }

    pub fn leaves_published(&self) -> u8 {
        self.data[LEAVES_PUBLISHED]
    }

    pub fn is_complete(&self) -> bool {
        self.leaves_published() == self.item_count()
    }

    pub fn set_leaves_published(&mut self, count: u8) {
        self.data[LEAVES_PUBLISHED] = count;
    }

    /// The frontier of a pending batch.
    pub fn frontier(&mut self) -> Result<Frontier<'_>, ProgramError> {
        let slots =
            self.data.get_mut(FRONTIER..FRONTIER + FRONTIER_SIZE).ok_or(ProgramError::InvalidAccountData)?;
        Frontier::new(slots).ok_or(ProgramError::InvalidAccountData)
    }

    /// Drops the frontier of a batch whose leaves are all published: the SAS trailer moves up and
    /// the data length shrinks. The first `COMPLETE_SIZE` bytes are then the whole account.
    pub fn drop_frontier(&mut self) -> Result<(), ProgramError> {
        if self.data.len() != PENDING_SIZE || !self.is_complete() {
            return Err(ProgramError::InvalidAccountData);
        }
        self.data.copy_within(FRONTIER + FRONTIER_SIZE..PENDING_SIZE, FRONTIER);
        self.data[FRONTIER_LEN..FRONTIER_LEN + 4].copy_from_slice(&0u32.to_le_bytes());
        self.data[DATA_LEN..DATA_LEN + 4].copy_from_slice(&(FIXED_DATA_SIZE as u32).to_le_bytes());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit() -> BatchCommit<'static> {
        BatchCommit {
            merkle_root: &[9; 32],
            item_count: 2,
            action_types: 0b11,
            agent_signature: &[8; 64],
            operator: &[7; 32],
            timestamp: 5,
            slot: 6,
        }
    }

    const ADDRESSES: SasAddresses<'static> =
        SasAddresses { credential: &[1; 32], schema: &[2; 32], agent: &[3; 32] };

    #[test]
    fn sizes_match_the_documented_formula() {
        assert_eq!(PENDING_SIZE, 560);
        assert_eq!(COMPLETE_SIZE, 336);
        assert_eq!(OPERATOR, 211);
        assert_eq!(LEAVES_PUBLISHED, 259);
    }

    #[test]
    fn a_written_batch_loads_pending_and_shrinks_once_complete() {
        let mut data = vec![0u8; PENDING_SIZE];
        write(&mut data, &ADDRESSES, &commit()).unwrap();
        let mut batch = BatchAccount::load(&mut data, &[2; 32]).unwrap();
        assert_eq!((batch.item_count(), batch.action_types(), batch.leaves_published()), (2, 0b11, 0));
        assert_eq!((batch.merkle_root(), batch.operator()), (&[9u8; 32][..], &[7u8; 32][..]));
        assert_eq!(batch.drop_frontier().err(), Some(ProgramError::InvalidAccountData));
        batch.set_leaves_published(2);
        batch.drop_frontier().unwrap();
        // The trailer (signer = agent) now ends the data, and the SAS data length is the fixed part.
        assert_eq!(&data[FRONTIER..FRONTIER + 32], &[3; 32]);
        assert_eq!(&data[DATA_LEN..DATA_LEN + 4], &(FIXED_DATA_SIZE as u32).to_le_bytes());
        let complete = &mut data[..COMPLETE_SIZE];
        assert!(BatchAccount::load(complete, &[2; 32]).unwrap().is_complete());
    }

    #[test]
    fn load_refuses_sizes_and_counts_that_do_not_fit() {
        let mut data = vec![0u8; PENDING_SIZE];
        write(&mut data, &ADDRESSES, &commit()).unwrap();
        assert!(BatchAccount::load(&mut data, &[1; 32]).is_err());
        assert!(BatchAccount::load(&mut data[..COMPLETE_SIZE], &[2; 32]).is_err());
        data[LEAVES_PUBLISHED] = 2;
        assert!(BatchAccount::load(&mut data, &[2; 32]).is_err());
    }
}
