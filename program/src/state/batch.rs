//! A batch attestation in SAS Attestation layout, at PDA ["batch", agent, Merkle root], with room
//! for the leaf data that `publish_batch_leaves` fills in.

use crate::error::ProgramError;
use crate::merkle::LEAF_DATA_SIZE;
use crate::state::attestation::{
    write_sas_header, write_sas_trailer, SasAddresses, SAS_HEADER_SIZE, SAS_TRAILER_SIZE,
};
use crate::state::discriminator;
use crate::writer::Writer;
use crate::Pubkey;

pub const BATCH_SEED: &[u8] = b"batch";
pub const MAX_BATCH_ITEMS: u8 = 100;

/// merkle_root, item_count, action_types, agent_signature, operator, timestamp, slot,
/// leaves_published, leaves (u32 length only; the leaves follow)
const FIXED_DATA_SIZE: usize = (4 + 32) + 1 + 1 + (4 + 64) + (4 + 32) + 8 + 8 + 1 + 4;

// Offsets in the account of the fields publish_batch_leaves reads or writes.
const SCHEMA: usize = 65;
const MERKLE_ROOT: usize = SAS_HEADER_SIZE + 4;
const ITEM_COUNT: usize = MERKLE_ROOT + 32;
const ACTION_TYPES: usize = ITEM_COUNT + 1;
const LEAVES_PUBLISHED: usize = SAS_HEADER_SIZE + FIXED_DATA_SIZE - 5;
const LEAVES: usize = SAS_HEADER_SIZE + FIXED_DATA_SIZE;

pub fn data_size(item_count: u8) -> usize {
    FIXED_DATA_SIZE + item_count as usize * LEAF_DATA_SIZE
}

pub fn account_size(item_count: u8) -> usize {
    SAS_HEADER_SIZE + data_size(item_count) + SAS_TRAILER_SIZE
}

pub struct BatchCommit<'a> {
    pub merkle_root: &'a [u8; 32],
    pub item_count: u8,
    pub action_types: u8,
    pub agent_signature: &'a [u8; 64],
    pub operator: &'a Pubkey,
    pub timestamp: i64,
    pub slot: u64,
}

pub fn write(data: &mut [u8], addresses: &SasAddresses, b: &BatchCommit) -> Result<(), ProgramError> {
    let mut w = Writer::new(data);
    let leaves_len = b.item_count as usize * LEAF_DATA_SIZE;
    write_sas_header(&mut w, b.merkle_root, addresses, data_size(b.item_count))?;
    w.vec(b.merkle_root)?
        .u8(b.item_count)?
        .u8(b.action_types)?
        .vec(b.agent_signature)?
        .vec(b.operator)?
        .i64(b.timestamp)?
        .u64(b.slot)?
        .u8(0)?
        .u32(leaves_len as u32)?
        .skip(leaves_len)?;
    write_sas_trailer(&mut w, addresses.agent)
}

/// A checked view over an existing batch account.
pub struct BatchAccount<'a> {
    data: &'a mut [u8],
}

impl<'a> BatchAccount<'a> {
    /// Fails unless `data` is a batch attestation of `schema` whose size fits its item count.
    pub fn load(data: &'a mut [u8], schema: &Pubkey) -> Result<Self, ProgramError> {
        let fits = data.len() > LEAVES
            && data[0] == discriminator::ATTESTATION
            && &data[SCHEMA..SCHEMA + 32] == schema
            && (1..=MAX_BATCH_ITEMS).contains(&data[ITEM_COUNT])
            && data.len() == account_size(data[ITEM_COUNT]);
        if !fits {
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

    pub fn leaves_published(&self) -> u8 {
        self.data[LEAVES_PUBLISHED]
    }

    /// The agent that signed the batch (the SAS signer field).
    pub fn signer(&self) -> &[u8] {
        let at = LEAVES + self.item_count() as usize * LEAF_DATA_SIZE;
        &self.data[at..at + 32]
    }

    /// Writes leaves starting at `start` and sets leaves_published to the end of the chunk.
    pub fn store_leaves(&mut self, start: u8, leaves: &[u8]) -> Result<(), ProgramError> {
        let at = LEAVES + start as usize * LEAF_DATA_SIZE;
        let end = at + leaves.len();
        let published = start as usize + leaves.len() / LEAF_DATA_SIZE;
        if published > self.item_count() as usize {
            return Err(ProgramError::TooManyLeaves);
        }
        self.data[at..end].copy_from_slice(leaves);
        self.data[LEAVES_PUBLISHED] = published as u8;
        Ok(())
    }

    /// Every leaf's data, once all are published.
    pub fn all_leaves(&self) -> &[u8] {
        &self.data[LEAVES..LEAVES + self.item_count() as usize * LEAF_DATA_SIZE]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_the_documented_formula() {
        assert_eq!(data_size(1), 163 + 34);
        assert_eq!(account_size(100), 336 + 3400);
    }

    #[test]
    fn written_batch_loads_and_takes_leaves() {
        let mut data = vec![0u8; account_size(2)];
        let commit = BatchCommit {
            merkle_root: &[9; 32],
            item_count: 2,
            action_types: 0b11,
            agent_signature: &[8; 64],
            operator: &[7; 32],
            timestamp: 5,
            slot: 6,
        };
        let addresses = SasAddresses { credential: &[1; 32], schema: &[2; 32], agent: &[3; 32] };
        write(&mut data, &addresses, &commit).unwrap();
        let mut batch = BatchAccount::load(&mut data, &[2; 32]).unwrap();
        assert_eq!((batch.item_count(), batch.action_types(), batch.leaves_published()), (2, 0b11, 0));
        assert_eq!(batch.merkle_root(), &[9; 32]);
        assert_eq!(batch.signer(), &[3; 32]);
        batch.store_leaves(0, &[4; 34]).unwrap();
        assert_eq!(batch.leaves_published(), 1);
        assert_eq!(batch.store_leaves(1, &[4; 68]).err(), Some(ProgramError::TooManyLeaves));
        assert!(BatchAccount::load(&mut data, &[1; 32]).is_err());
    }
}
