//! The program's accounts: its own Agent account and the SAS-layout Credential, Schemas and
//! Attestations (docs/program.md, "Accounts").

pub mod agent;
pub mod attestation;
pub mod batch;
pub mod credential;
pub mod schema;

/// First byte of every account the program owns.
pub mod discriminator {
    pub const CREDENTIAL: u8 = 0;
    pub const SCHEMA: u8 = 1;
    pub const ATTESTATION: u8 = 2;
    pub const AGENT: u8 = 16;
}

/// The four action types; bit `t` of a policy or batch mask stands for type `t`.
pub const ACTION_TYPE_COUNT: u8 = 4;
pub const ALL_ACTION_TYPES: u8 = (1 << ACTION_TYPE_COUNT) - 1;

/// A mask is valid when it names at least one action type and nothing else.
pub fn is_valid_action_mask(mask: u8) -> bool {
    mask != 0 && mask & !ALL_ACTION_TYPES == 0
}
