//! The issuer's Credential in SAS layout, at PDA ["credential"]. The program is the authority.

use crate::error::ProgramError;
use crate::state::discriminator;
use crate::writer::Writer;
use crate::Pubkey;

pub const CREDENTIAL_SEED: &[u8] = b"credential";
pub const CREDENTIAL_NAME: &[u8] = b"ABAS";
/// discriminator, authority, name (u32 + 4), authorized signers (u32 count, none)
pub const CREDENTIAL_SIZE: usize = 1 + 32 + 4 + CREDENTIAL_NAME.len() + 4;

pub fn write(data: &mut [u8], program_id: &Pubkey) -> Result<(), ProgramError> {
    let mut w = Writer::new(data);
    w.u8(discriminator::CREDENTIAL)?.bytes(program_id)?.vec(CREDENTIAL_NAME)?.u32(0)?;
    Ok(())
}

/// True when `data` is the program's Credential (the only account it creates with this byte).
pub fn is_credential(data: &[u8]) -> bool {
    data.len() == CREDENTIAL_SIZE && data[0] == discriminator::CREDENTIAL
}
