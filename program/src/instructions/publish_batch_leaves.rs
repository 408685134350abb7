//! `publish_batch_leaves`: the operator stores a chunk of a batch's leaf data. When the last leaf
//! arrives the program recomputes the Merkle root; a mismatch fails the whole transaction.
//! Data: [5, start_index, leaf_count, leaf_data(34 × leaf_count)]

use crate::checks::{expect_owned_by, expect_signer, expect_writable};
use crate::error::{ProgramError, ProgramResult};
use crate::input::Input;
use crate::instructions::{expect_schema, load_operated_agent};
use crate::merkle::{compute_root, LEAF_DATA_SIZE};
use crate::state::batch::BatchAccount;
use crate::state::schema::BATCH_SCHEMA;
use crate::state::ACTION_TYPE_COUNT;

/// Start of the heap region: scratch space for the tree, too big for a 4 KiB stack frame.
#[cfg(target_arch = "bpf")]
const HEAP_START: usize = 0x3_0000_0000;

pub fn process(input: &Input) -> ProgramResult {
    let data = input.data;
    let (start, count) = match data {
        [_, start, count, ..] => (*start, *count),
        _ => return Err(ProgramError::InvalidInstructionData),
    };
    let leaves = &data[3..];
    if count == 0 || leaves.len() != count as usize * LEAF_DATA_SIZE {
        return Err(ProgramError::InvalidInstructionData);
    }
    let [operator, agent_account, batch_account, schema] =
        input.accounts::<4>().ok_or(ProgramError::NotEnoughAccounts)?;
    let program_id = input.program_id;
    expect_signer(&operator)?;
    expect_writable(&batch_account)?;
    let agent = load_operated_agent(&agent_account, &operator, program_id)?;
    expect_owned_by(&schema, program_id)?;
    let credential = schema_credential(schema.data())?;
    expect_schema(&schema, &BATCH_SCHEMA, &credential, program_id)?;
    expect_owned_by(&batch_account, program_id)?;
    let mut batch = BatchAccount::load(batch_account.data_mut(), schema.key())?;
    if batch.signer() != agent.agent() {
        return Err(ProgramError::AgentMismatch);
    }
    if batch.leaves_published() == batch.item_count() {
        return Err(ProgramError::BatchAlreadyComplete);
    }
    if start > batch.leaves_published() {
        return Err(ProgramError::LeafIndexOutOfOrder);
    }
    for leaf in leaves.chunks_exact(LEAF_DATA_SIZE) {
        if leaf[0] >= ACTION_TYPE_COUNT || batch.action_types() & (1 << leaf[0]) == 0 {
            return Err(ProgramError::ActionTypeNotAllowed);
        }
        if leaf[1] > 1 {
            return Err(ProgramError::InvalidPrivacyFlag);
        }
    }
    batch.store_leaves(start, leaves)?;
    if batch.leaves_published() < batch.item_count() {
        return Ok(());
    }
    let root = compute_root(batch.all_leaves(), scratch()).ok_or(ProgramError::SyscallFailed)?;
    if root != batch.merkle_root() {
        return Err(ProgramError::MerkleRootMismatch);
    }
    Ok(())
}

/// The credential a Schema account names (bytes 1..33), checked by `expect_schema` next.
fn schema_credential(data: &[u8]) -> Result<[u8; 32], ProgramError> {
    data.get(1..33).and_then(|bytes| bytes.try_into().ok()).ok_or(ProgramError::InvalidSchema)
}

#[cfg(target_arch = "bpf")]
fn scratch() -> &'static mut [[u8; 32]] {
    // SAFETY: the heap region is this program's own 32 KiB and nothing else uses it (no
    // allocator); 100 hashes need 3,200 bytes.
    unsafe {
        core::slice::from_raw_parts_mut(
            HEAP_START as *mut [u8; 32],
            crate::state::batch::MAX_BATCH_ITEMS as usize,
        )
    }
}

/// Off-chain there is no heap region (and no hashing): the root cannot be computed.
#[cfg(not(target_arch = "bpf"))]
fn scratch() -> &'static mut [[u8; 32]] {
    &mut []
}
