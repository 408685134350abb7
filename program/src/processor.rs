//! Dispatches on the first byte of the instruction data.

use crate::error::{ProgramError, ProgramResult};
use crate::input::Input;
use crate::instructions::*;

pub fn process(input: &Input) -> ProgramResult {
    match input.data.first().copied() {
        Some(DISCRIMINATOR_INITIALIZE) => initialize::process(input),
        Some(DISCRIMINATOR_REGISTER_AGENT) => register_agent::process(input),
        Some(DISCRIMINATOR_UPDATE_AGENT) => update_agent::process(input),
        Some(DISCRIMINATOR_ATTEST) => attest::process(input),
        Some(DISCRIMINATOR_ATTEST_BATCH) => attest_batch::process(input),
        Some(DISCRIMINATOR_PUBLISH_BATCH_LEAVES) => publish_batch_leaves::process(input),
        _ => Err(ProgramError::InvalidInstruction),
    }
}
