//! Finds the Ed25519 precompile instruction right before ours in the instructions sysvar and
//! checks that it verified exactly the agent's key over exactly the expected message.
//!
//! Sysvar layout: u16 instruction count, u16 offset of each instruction, then per instruction:
//! u16 account count, (u8 flags + 32-byte key) per account, program id (32), u16 data length,
//! data. The last two bytes are the index of the instruction being executed.
//!
//! Precompile data: u8 signature count, u8 padding, then per signature seven u16: signature
//! offset, signature instruction index, public key offset, public key instruction index, message
//! offset, message size, message instruction index. An index of 0xFFFF means "this instruction".

use crate::checks::ED25519_PROGRAM_ID;
use crate::error::ProgramError;
use crate::Pubkey;

const THIS_INSTRUCTION: u16 = u16::MAX;
const OFFSETS_START: usize = 2;
const OFFSETS_SIZE: usize = 14;

fn read_u16(bytes: &[u8], at: usize) -> Option<u16> {
    let raw = bytes.get(at..at.checked_add(2)?)?;
    Some(u16::from_le_bytes([raw[0], raw[1]]))
}

/// The program id and data of instruction `index` of the transaction.
fn load_instruction(sysvar: &[u8], index: u16) -> Option<(&[u8], &[u8])> {
    let count = read_u16(sysvar, 0)?;
    if index >= count {
        return None;
    }
    let start = read_u16(sysvar, 2 + 2 * index as usize)? as usize;
    let account_count = read_u16(sysvar, start)? as usize;
    let program_id_at = start + 2 + account_count * 33;
    let program_id = sysvar.get(program_id_at..program_id_at + 32)?;
    let data_len = read_u16(sysvar, program_id_at + 32)? as usize;
    let data_at = program_id_at + 34;
    let data = sysvar.get(data_at..data_at + data_len)?;
    Some((program_id, data))
}

/// What the precompile instruction must have verified.
pub struct ExpectedSignature<'a> {
    /// The instructions sysvar's data.
    pub sysvar: &'a [u8],
    pub signer: &'a Pubkey,
    pub message: &'a [u8],
}

/// Checks the precompile instruction before the current one; returns the verified signature.
/// (One argument: SBPF passes at most five registers, and slices take two.)
pub fn verified_signature(expected: &ExpectedSignature) -> Result<[u8; 64], ProgramError> {
    let ExpectedSignature { sysvar, signer, message } = *expected;
    let current = sysvar
        .len()
        .checked_sub(2)
        .and_then(|at| read_u16(sysvar, at))
        .ok_or(ProgramError::InvalidInstructionsSysvar)?;
    let index = current.checked_sub(1).ok_or(ProgramError::MissingEd25519Instruction)?;
    let (program_id, data) =
        load_instruction(sysvar, index).ok_or(ProgramError::MissingEd25519Instruction)?;
    if program_id != ED25519_PROGRAM_ID {
        return Err(ProgramError::MissingEd25519Instruction);
    }
    if data.first() != Some(&1) || data.len() < OFFSETS_START + OFFSETS_SIZE {
        return Err(ProgramError::MalformedEd25519Instruction);
    }
    let field =
        |n: usize| read_u16(data, OFFSETS_START + 2 * n).ok_or(ProgramError::MalformedEd25519Instruction);
    let (signature_at, signature_ix) = (field(0)? as usize, field(1)?);
    let (key_at, key_ix) = (field(2)? as usize, field(3)?);
    let (message_at, message_len, message_ix) = (field(4)? as usize, field(5)? as usize, field(6)?);
    for ix in [signature_ix, key_ix, message_ix] {
        if ix != THIS_INSTRUCTION && ix != index {
            return Err(ProgramError::Ed25519OffsetsOutsideInstruction);
        }
    }
    let signature =
        data.get(signature_at..signature_at + 64).ok_or(ProgramError::MalformedEd25519Instruction)?;
    let key = data.get(key_at..key_at + 32).ok_or(ProgramError::MalformedEd25519Instruction)?;
    let signed =
        data.get(message_at..message_at + message_len).ok_or(ProgramError::MalformedEd25519Instruction)?;
    if key != signer {
        return Err(ProgramError::SignerMismatch);
    }
    if signed != message {
        return Err(ProgramError::MessageMismatch);
    }
    let mut out = [0u8; 64];
    out.copy_from_slice(signature);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sysvar holding the given (program id, data) instructions, executing `current`.
    fn sysvar(instructions: &[(&Pubkey, &[u8])], current: u16) -> Vec<u8> {
        let mut out = (instructions.len() as u16).to_le_bytes().to_vec();
        let mut body = Vec::new();
        let header_len = 2 + 2 * instructions.len();
        for (program_id, data) in instructions {
            out.extend(((header_len + body.len()) as u16).to_le_bytes());
            body.extend(0u16.to_le_bytes());
            body.extend(program_id.iter());
            body.extend((data.len() as u16).to_le_bytes());
            body.extend(data.iter());
        }
        out.extend(body);
        out.extend(current.to_le_bytes());
        out
    }

    fn precompile(key: &Pubkey, message: &[u8], indexes: [u16; 3]) -> Vec<u8> {
        let (sig_at, key_at, msg_at) = (16u16, 80u16, 112u16);
        let mut data = vec![1u8, 0];
        for v in [sig_at, indexes[0], key_at, indexes[1], msg_at, message.len() as u16, indexes[2]] {
            data.extend(v.to_le_bytes());
        }
        data.extend([9u8; 64]);
        data.extend(key.iter());
        data.extend(message);
        data
    }

    fn verify(sysvar: &[u8], signer: &Pubkey, message: &[u8]) -> Result<[u8; 64], ProgramError> {
        verified_signature(&ExpectedSignature { sysvar, signer, message })
    }

    const AGENT: Pubkey = [7; 32];
    const OURS: Pubkey = [5; 32];

    #[test]
    fn accepts_the_agents_signature_over_the_message() {
        let pre = precompile(&AGENT, b"hello", [u16::MAX; 3]);
        let sysvar = sysvar(&[(&ED25519_PROGRAM_ID, &pre), (&OURS, &[3])], 1);
        assert_eq!(verify(&sysvar, &AGENT, b"hello"), Ok([9u8; 64]));
    }

    #[test]
    fn accepts_its_own_index_instead_of_this_instruction() {
        let pre = precompile(&AGENT, b"hello", [0, 0, 0]);
        let sysvar = sysvar(&[(&ED25519_PROGRAM_ID, &pre), (&OURS, &[3])], 1);
        assert!(verify(&sysvar, &AGENT, b"hello").is_ok());
    }

    #[test]
    fn names_each_failure() {
        let good = precompile(&AGENT, b"hello", [u16::MAX; 3]);
        let first = sysvar(&[(&OURS, &[3])], 0);
        assert_eq!(verify(&first, &AGENT, b"hello"), Err(ProgramError::MissingEd25519Instruction));
        let other = sysvar(&[(&OURS, &good), (&OURS, &[3])], 1);
        assert_eq!(verify(&other, &AGENT, b"hello"), Err(ProgramError::MissingEd25519Instruction));
        let pointing_away = precompile(&AGENT, b"hello", [u16::MAX, u16::MAX, 1]);
        let away = sysvar(&[(&ED25519_PROGRAM_ID, &pointing_away), (&OURS, &[3])], 1);
        assert_eq!(verify(&away, &AGENT, b"hello"), Err(ProgramError::Ed25519OffsetsOutsideInstruction));
        let ok = sysvar(&[(&ED25519_PROGRAM_ID, &good), (&OURS, &[3])], 1);
        assert_eq!(verify(&ok, &[8; 32], b"hello"), Err(ProgramError::SignerMismatch));
        assert_eq!(verify(&ok, &AGENT, b"hellO"), Err(ProgramError::MessageMismatch));
        let mut two = good.clone();
        two[0] = 2;
        let two = sysvar(&[(&ED25519_PROGRAM_ID, &two), (&OURS, &[3])], 1);
        assert_eq!(verify(&two, &AGENT, b"hello"), Err(ProgramError::MalformedEd25519Instruction));
        let short = sysvar(&[(&ED25519_PROGRAM_ID, &good[..100]), (&OURS, &[3])], 1);
        assert_eq!(verify(&short, &AGENT, b"hello"), Err(ProgramError::MalformedEd25519Instruction));
        assert_eq!(verify(&[1], &AGENT, b"hello"), Err(ProgramError::InvalidInstructionsSysvar));
    }

    #[test]
    fn never_reads_outside_a_truncated_sysvar() {
        let good = precompile(&AGENT, b"hello", [u16::MAX; 3]);
        let full = sysvar(&[(&ED25519_PROGRAM_ID, &good), (&OURS, &[3])], 1);
        // The precompile instruction ends before our own (2 + 32 + 2 + 1 bytes) and the index.
        let precompile_end = full.len() - 2 - 37;
        for cut in 0..full.len() - 2 {
            let mut truncated = full[..cut].to_vec();
            truncated.extend(1u16.to_le_bytes());
            let result = verify(&truncated, &AGENT, b"hello");
            assert_eq!(result.is_err(), cut < precompile_end, "cut at {cut}");
        }
    }
}
