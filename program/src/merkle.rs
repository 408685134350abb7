//! The batch Merkle tree (docs/program.md): leaf = H(0x00 ‖ leaf data), node = H(0x01 ‖ l ‖ r),
//! RFC 6962 shape, computed level by level with an unpaired last node carried up.

use crate::syscalls::sha256;

/// action type (1) ‖ privacy flag (1) ‖ stored hash (32)
pub const LEAF_DATA_SIZE: usize = 34;

pub fn hash_leaf(leaf_data: &[u8]) -> Option<[u8; 32]> {
    sha256(&[&[0], leaf_data])
}

pub fn hash_node(left: &[u8; 32], right: &[u8; 32]) -> Option<[u8; 32]> {
    sha256(&[&[1], left, right])
}

/// The root over `leaves` (concatenated leaf data), using `scratch` (one slot per leaf) as the
/// working row. None when there are no leaves, too little scratch, or hashing fails.
pub fn compute_root(leaves: &[u8], scratch: &mut [[u8; 32]]) -> Option<[u8; 32]> {
    let count = leaves.len() / LEAF_DATA_SIZE;
    if count == 0 || leaves.len() % LEAF_DATA_SIZE != 0 || scratch.len() < count {
        return None;
    }
    for (slot, leaf) in scratch.iter_mut().zip(leaves.chunks_exact(LEAF_DATA_SIZE)) {
        *slot = hash_leaf(leaf)?;
    }
    let mut width = count;
    while width > 1 {
        let mut written = 0;
        let mut read = 0;
        while read + 1 < width {
            scratch[written] = hash_node(&scratch[read], &scratch[read + 1])?;
            written += 1;
            read += 2;
        }
        if read < width {
            scratch[written] = scratch[read];
            written += 1;
        }
        width = written;
    }
    Some(scratch[0])
}
