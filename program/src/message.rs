//! The messages an agent signs (docs/program.md, "Signed messages").

use crate::Pubkey;

pub const ATTEST_TAG: &[u8; 14] = b"abas:attest:v1";
pub const BATCH_TAG: &[u8; 13] = b"abas:batch:v1";
pub const ATTEST_MESSAGE_LEN: usize = 112;
pub const BATCH_MESSAGE_LEN: usize = 111;

/// tag ‖ program id ‖ agent ‖ action type ‖ privacy flag ‖ stored hash
pub fn attest_message(
    program_id: &Pubkey,
    agent: &Pubkey,
    action_type: u8,
    privacy_mode: u8,
    stored_hash: &[u8; 32],
) -> [u8; ATTEST_MESSAGE_LEN] {
    let mut out = [0u8; ATTEST_MESSAGE_LEN];
    out[..14].copy_from_slice(ATTEST_TAG);
    out[14..46].copy_from_slice(program_id);
    out[46..78].copy_from_slice(agent);
    out[78] = action_type;
    out[79] = privacy_mode;
    out[80..].copy_from_slice(stored_hash);
    out
}

/// tag ‖ program id ‖ agent ‖ item count ‖ action type mask ‖ Merkle root
pub fn batch_message(
    program_id: &Pubkey,
    agent: &Pubkey,
    item_count: u8,
    action_types: u8,
    merkle_root: &[u8; 32],
) -> [u8; BATCH_MESSAGE_LEN] {
    let mut out = [0u8; BATCH_MESSAGE_LEN];
    out[..13].copy_from_slice(BATCH_TAG);
    out[13..45].copy_from_slice(program_id);
    out[45..77].copy_from_slice(agent);
    out[77] = item_count;
    out[78] = action_types;
    out[79..].copy_from_slice(merkle_root);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_have_fixed_layouts() {
        let m = attest_message(&[1; 32], &[2; 32], 3, 1, &[4; 32]);
        assert_eq!(&m[..14], b"abas:attest:v1");
        assert_eq!((m[13], m[14], m[46], m[78], m[79], m[80], m[111]), (b'1', 1, 2, 3, 1, 4, 4));
        let b = batch_message(&[1; 32], &[2; 32], 100, 0b1010, &[4; 32]);
        assert_eq!(&b[..13], b"abas:batch:v1");
        assert_eq!((b[13], b[45], b[77], b[78], b[79], b[110]), (1, 2, 100, 0b1010, 4, 4));
    }
}
