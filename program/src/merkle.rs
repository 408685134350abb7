//! The batch Merkle tree (docs/program.md): leaf = H(0x00 ‖ leaf data), node = H(0x01 ‖ l ‖ r),
//! RFC 6962 shape, built left to right as the leaves are published, keeping only a frontier.

use crate::syscalls::{copy_hash, sha256};

/// action type (1) ‖ privacy flag (1) ‖ stored hash (32)
pub const LEAF_DATA_SIZE: usize = 34;
/// Enough subtree roots for any leaf count below 128: slot `h` holds a subtree of 2^h leaves.
pub const FRONTIER_SLOTS: usize = 7;
pub const FRONTIER_SIZE: usize = FRONTIER_SLOTS * 32;

type Hash = [u8; 32];

pub fn hash_leaf(leaf_data: &[u8], out: &mut Hash) -> bool {
    sha256(&[&[0], leaf_data], out)
}

pub fn hash_node(left: &[u8], right: &[u8], out: &mut Hash) -> bool {
    sha256(&[&[1], left, right], out)
}

/// The frontier of an RFC 6962 tree whose leaves arrive in order: after `count` leaves, slot `h`
/// holds the root of a perfect subtree of 2^h leaves exactly when bit `h` of `count` is set, the
/// taller subtrees lying to the left. Appending a leaf is adding one to a binary counter: equal
/// subtrees merge as the carry moves up.
pub struct Frontier<'a> {
    slots: &'a mut [u8],
}

impl<'a> Frontier<'a> {
    /// A view over `FRONTIER_SIZE` bytes; None for any other length.
    pub fn new(slots: &'a mut [u8]) -> Option<Self> {
        (slots.len() == FRONTIER_SIZE).then_some(Self { slots })
    }

    fn slot(&self, height: usize) -> Option<&[u8]> {
        self.slots.get(height * 32..height * 32 + 32)
    }

    fn slot_mut(&mut self, height: usize) -> Option<&mut Hash> {
        self.slots.get_mut(height * 32..height * 32 + 32)?.try_into().ok()
    }

    /// Appends a leaf after the `count` leaves already folded in. None when hashing fails or the
    /// count does not fit the frontier.
    pub fn push(&mut self, count: u8, leaf_data: &[u8]) -> Option<()> {
        // Two buffers whose roles swap at each level, so no hash is moved until the last.
        let (mut a, mut b) = ([0u8; 32], [0u8; 32]);
        let (mut carry, mut next) = (&mut a, &mut b);
        hash_leaf(leaf_data, carry).then_some(())?;
        let mut height = 0;
        while (count >> height) & 1 == 1 {
            hash_node(self.slot(height)?, carry, next).then_some(())?;
            core::mem::swap(&mut carry, &mut next);
            height += 1;
        }
        copy_hash(self.slot_mut(height)?, carry);
        Some(())
    }

    /// The root of the first `count` leaves: the subtree roots folded right to left, which is
    /// RFC 6962's split at the largest power of two below the count. None for no leaves.
    pub fn root(&self, count: u8, out: &mut Hash) -> Option<()> {
        let mut next = [0u8; 32];
        let mut folded = false;
        for height in 0..FRONTIER_SLOTS {
            if (count >> height) & 1 == 0 {
                continue;
            }
            let left = self.slot(height)?;
            if folded {
                hash_node(left, out, &mut next).then_some(())?;
                copy_hash(out, &next);
            } else {
                copy_hash(out, left.try_into().ok()?);
                folded = true;
            }
        }
        folded.then_some(())
    }
}
