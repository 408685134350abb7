//! Every error the program returns. Codes are stable: never renumber, only append inside a range.

/// Returned to the runtime as `custom program error: <code>`.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgramError {
    // 1000..1099: instruction data
    InvalidInstruction = 1000,
    InvalidInstructionData = 1001,
    InvalidActionType = 1002,
    InvalidPrivacyFlag = 1003,
    InvalidPolicy = 1004,
    InvalidStatus = 1005,
    InvalidBatchSize = 1006,
    // 1100..1199: accounts
    NotEnoughAccounts = 1100,
    MissingRequiredSignature = 1101,
    AccountNotWritable = 1102,
    InvalidAccountOwner = 1103,
    InvalidAccountData = 1104,
    InvalidPda = 1105,
    InvalidSystemProgram = 1106,
    InvalidInstructionsSysvar = 1107,
    InvalidCredential = 1108,
    InvalidSchema = 1109,
    AlreadyInitialized = 1110,
    NonCanonicalBump = 1111,
    NotUpgradeAuthority = 1112,
    InvalidProgramData = 1113,
    // 1200..1299: agents and policy
    AgentAlreadyRegistered = 1200,
    NotAgentOperator = 1201,
    AgentSuspended = 1202,
    AgentRevoked = 1203,
    ActionTypeNotAllowed = 1204,
    AgentMismatch = 1205,
    // 1300..1399: the agent's Ed25519 signature
    MissingEd25519Instruction = 1300,
    MalformedEd25519Instruction = 1301,
    Ed25519OffsetsOutsideInstruction = 1302,
    SignerMismatch = 1303,
    MessageMismatch = 1304,
    // 1400..1499: attestations and batches
    DuplicateAttestation = 1400,
    DuplicateBatch = 1401,
    LeafIndexOutOfOrder = 1402,
    TooManyLeaves = 1403,
    MerkleRootMismatch = 1404,
    BatchAlreadyComplete = 1405,
    // 1900..1999: arithmetic and runtime
    ArithmeticOverflow = 1900,
    CrossProgramInvocationFailed = 1901,
    SyscallFailed = 1902,
}

impl ProgramError {
    /// The name written to the program log next to the code, so a log reader needs no table.
    pub fn name(self) -> &'static str {
        match self {
            Self::InvalidInstruction => "InvalidInstruction",
            Self::InvalidInstructionData => "InvalidInstructionData",
            Self::InvalidActionType => "InvalidActionType",
            Self::InvalidPrivacyFlag => "InvalidPrivacyFlag",
            Self::InvalidPolicy => "InvalidPolicy",
            Self::InvalidStatus => "InvalidStatus",
            Self::InvalidBatchSize => "InvalidBatchSize",
            Self::NotEnoughAccounts => "NotEnoughAccounts",
            Self::MissingRequiredSignature => "MissingRequiredSignature",
            Self::AccountNotWritable => "AccountNotWritable",
            Self::InvalidAccountOwner => "InvalidAccountOwner",
            Self::InvalidAccountData => "InvalidAccountData",
            Self::InvalidPda => "InvalidPda",
            Self::InvalidSystemProgram => "InvalidSystemProgram",
            Self::InvalidInstructionsSysvar => "InvalidInstructionsSysvar",
            Self::InvalidCredential => "InvalidCredential",
            Self::InvalidSchema => "InvalidSchema",
            Self::AlreadyInitialized => "AlreadyInitialized",
            Self::NonCanonicalBump => "NonCanonicalBump",
            Self::NotUpgradeAuthority => "NotUpgradeAuthority",
            Self::InvalidProgramData => "InvalidProgramData",
            Self::AgentAlreadyRegistered => "AgentAlreadyRegistered",
            Self::NotAgentOperator => "NotAgentOperator",
            Self::AgentSuspended => "AgentSuspended",
            Self::AgentRevoked => "AgentRevoked",
            Self::ActionTypeNotAllowed => "ActionTypeNotAllowed",
            Self::AgentMismatch => "AgentMismatch",
            Self::MissingEd25519Instruction => "MissingEd25519Instruction",
            Self::MalformedEd25519Instruction => "MalformedEd25519Instruction",
            Self::Ed25519OffsetsOutsideInstruction => "Ed25519OffsetsOutsideInstruction",
            Self::SignerMismatch => "SignerMismatch",
            Self::MessageMismatch => "MessageMismatch",
            Self::DuplicateAttestation => "DuplicateAttestation",
            Self::DuplicateBatch => "DuplicateBatch",
            Self::LeafIndexOutOfOrder => "LeafIndexOutOfOrder",
            Self::TooManyLeaves => "TooManyLeaves",
            Self::MerkleRootMismatch => "MerkleRootMismatch",
            Self::BatchAlreadyComplete => "BatchAlreadyComplete",
            Self::ArithmeticOverflow => "ArithmeticOverflow",
            Self::CrossProgramInvocationFailed => "CrossProgramInvocationFailed",
            Self::SyscallFailed => "SyscallFailed",
        }
    }
}

pub type ProgramResult = Result<(), ProgramError>;

#[cfg(test)]
mod tests {
    use super::ProgramError;

    #[test]
    fn codes_are_the_documented_numbers() {
        assert_eq!(ProgramError::InvalidInstruction as u32, 1000);
        assert_eq!(ProgramError::AlreadyInitialized as u32, 1110);
        assert_eq!(ProgramError::MessageMismatch as u32, 1304);
        assert_eq!(ProgramError::CrossProgramInvocationFailed as u32, 1901);
        assert_eq!(ProgramError::AgentMismatch.name(), "AgentMismatch");
    }
}
