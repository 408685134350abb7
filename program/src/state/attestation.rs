//! A single BehaviorAttestation in SAS Attestation layout, at PDA ["attestation", agent, stored hash].
//!
//! SAS layout: discriminator (2), nonce (32), credential (32), schema (32), data (u32 length +
//! bytes), signer (32), expiry (i64), token account (32).

use crate::error::ProgramError;
use crate::state::discriminator;
use crate::writer::Writer;
use crate::Pubkey;

pub const ATTESTATION_SEED: &[u8] = b"attestation";
/// discriminator, nonce, credential, schema, data length
pub const SAS_HEADER_SIZE: usize = 1 + 32 + 32 + 32 + 4;
/// signer, expiry, token account
pub const SAS_TRAILER_SIZE: usize = 32 + 8 + 32;
/// action_type, privacy_mode, action_hash, agent_signature, operator, timestamp, slot
pub const ATTESTATION_DATA_SIZE: usize = 1 + 1 + (4 + 32) + (4 + 64) + (4 + 32) + 8 + 8;
pub const ATTESTATION_SIZE: usize = SAS_HEADER_SIZE + ATTESTATION_DATA_SIZE + SAS_TRAILER_SIZE;

/// Writes the SAS header; the caller writes `data_len` bytes of data, then `write_sas_trailer`.
pub fn write_sas_header(
    w: &mut Writer,
    nonce: &[u8; 32],
    addresses: &SasAddresses,
    data_len: usize,
) -> Result<(), ProgramError> {
    w.u8(discriminator::ATTESTATION)?
        .bytes(nonce)?
        .bytes(addresses.credential)?
        .bytes(addresses.schema)?
        .u32(data_len as u32)?;
    Ok(())
}

/// signer = the agent, expiry = 0 (never), token account = none
pub fn write_sas_trailer(w: &mut Writer, agent: &Pubkey) -> Result<(), ProgramError> {
    w.bytes(agent)?.i64(0)?.skip(32)?;
    Ok(())
}

pub struct Attestation<'a> {
    pub action_type: u8,
    pub privacy_mode: u8,
    pub stored_hash: &'a [u8; 32],
    pub agent_signature: &'a [u8; 64],
    pub operator: &'a Pubkey,
    pub timestamp: i64,
    pub slot: u64,
}

/// The accounts a SAS Attestation names besides its nonce.
pub struct SasAddresses<'a> {
    pub credential: &'a Pubkey,
    pub schema: &'a Pubkey,
    /// The SAS signer: the agent whose key signed.
    pub agent: &'a Pubkey,
}

pub fn write(data: &mut [u8], addresses: &SasAddresses, a: &Attestation) -> Result<(), ProgramError> {
    let mut w = Writer::new(data);
    write_sas_header(&mut w, a.stored_hash, addresses, ATTESTATION_DATA_SIZE)?;
    w.u8(a.action_type)?
        .u8(a.privacy_mode)?
        .vec(a.stored_hash)?
        .vec(a.agent_signature)?
        .vec(a.operator)?
        .i64(a.timestamp)?
        .u64(a.slot)?;
    write_sas_trailer(&mut w, addresses.agent)
}
