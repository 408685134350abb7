//! `publish_batch_leaves`: the batch's operator publishes the next chunk of its leaves as
//! instruction data. The program folds them, in order, into the batch's Merkle frontier; the last
//! leaf must reproduce the signed root (or the whole transaction fails), and then the frontier is
//! dropped and its rent goes back to the operator. The ledger holds every leaf in these
//! instructions; no leaf byte is stored in an account.
//! Data: [5, start_index, leaf_count, leaf_data(34 × leaf_count)]

use crate::checks::{expect_owned_by, expect_signer, expect_writable};
use crate::cpi::shrink_and_refund;
use crate::error::{ProgramError, ProgramResult};
use crate::input::Input;
use crate::instructions::expect_schema;
use crate::merkle::LEAF_DATA_SIZE;
use crate::state::batch::{BatchAccount, COMPLETE_SIZE};
use crate::state::schema::BATCH_SCHEMA;
use crate::state::ACTION_TYPE_COUNT;
use crate::syscalls::{log, log_pubkey};

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
    let [operator, batch_account, schema] = input.accounts::<3>().ok_or(ProgramError::NotEnoughAccounts)?;
    let program_id = input.program_id;
    expect_signer(&operator)?;
    expect_writable(&operator)?;
    expect_writable(&batch_account)?;
    expect_owned_by(&schema, program_id)?;
    let credential = schema_credential(schema.data())?;
    expect_schema(&schema, &BATCH_SCHEMA, &credential, program_id)?;
    expect_owned_by(&batch_account, program_id)?;
    let mut batch = BatchAccount::load(batch_account.data_mut(), schema.key())?;
    if batch.operator() != operator.key() {
        log("abas: signer is not the batch's operator");
        log_pubkey(operator.key());
        return Err(ProgramError::NotAgentOperator);
    }
    if batch.is_complete() {
        return Err(ProgramError::BatchAlreadyComplete);
    }
    if start != batch.leaves_published() {
        return Err(ProgramError::LeafIndexOutOfOrder);
    }
    if start as usize + count as usize > batch.item_count() as usize {
        return Err(ProgramError::TooManyLeaves);
    }
    let (action_types, item_count) = (batch.action_types(), batch.item_count());
    let mut published = start;
    let mut frontier = batch.frontier()?;
    for leaf in leaves.chunks_exact(LEAF_DATA_SIZE) {
        if leaf[0] >= ACTION_TYPE_COUNT || action_types & (1 << leaf[0]) == 0 {
            return Err(ProgramError::ActionTypeNotAllowed);
        }
        if leaf[1] > 1 {
            return Err(ProgramError::InvalidPrivacyFlag);
        }
        frontier.push(published, leaf).ok_or(ProgramError::SyscallFailed)?;
        published += 1;
    }
    if published < item_count {
        batch.set_leaves_published(published);
        return Ok(());
    }
    let mut root = [0u8; 32];
    frontier.root(item_count, &mut root).ok_or(ProgramError::SyscallFailed)?;
    if root != batch.merkle_root() {
        return Err(ProgramError::MerkleRootMismatch);
    }
    batch.set_leaves_published(published);
    batch.drop_frontier()?;
    shrink_and_refund(&batch_account, COMPLETE_SIZE, &operator)
}

/// The credential a Schema account names (bytes 1..33), checked by `expect_schema` next.
fn schema_credential(data: &[u8]) -> Result<[u8; 32], ProgramError> {
    data.get(1..33).and_then(|bytes| bytes.try_into().ok()).ok_or(ProgramError::InvalidSchema)
}
