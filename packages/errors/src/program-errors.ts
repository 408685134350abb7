import { AbasError } from "./abas-error.js";
import {
  ABAS_PROGRAM__ACCOUNT_NOT_WRITABLE,
  ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED,
  ABAS_PROGRAM__AGENT_ALREADY_REGISTERED,
  ABAS_PROGRAM__AGENT_MISMATCH,
  ABAS_PROGRAM__AGENT_REVOKED,
  ABAS_PROGRAM__AGENT_SUSPENDED,
  ABAS_PROGRAM__ALREADY_INITIALIZED,
  ABAS_PROGRAM__NON_CANONICAL_BUMP,
  ABAS_PROGRAM__NOT_UPGRADE_AUTHORITY,
  ABAS_PROGRAM__INVALID_PROGRAM_DATA,
  ABAS_PROGRAM__ARITHMETIC_OVERFLOW,
  ABAS_PROGRAM__BATCH_ALREADY_COMPLETE,
  ABAS_PROGRAM__CROSS_PROGRAM_INVOCATION_FAILED,
  ABAS_PROGRAM__DUPLICATE_ATTESTATION,
  ABAS_PROGRAM__DUPLICATE_BATCH,
  ABAS_PROGRAM__ED25519_OFFSETS_OUTSIDE_INSTRUCTION,
  ABAS_PROGRAM__INVALID_ACCOUNT_DATA,
  ABAS_PROGRAM__INVALID_ACCOUNT_OWNER,
  ABAS_PROGRAM__INVALID_ACTION_TYPE,
  ABAS_PROGRAM__INVALID_BATCH_SIZE,
  ABAS_PROGRAM__INVALID_CREDENTIAL,
  ABAS_PROGRAM__INVALID_INSTRUCTION,
  ABAS_PROGRAM__INVALID_INSTRUCTION_DATA,
  ABAS_PROGRAM__INVALID_INSTRUCTIONS_SYSVAR,
  ABAS_PROGRAM__INVALID_PDA,
  ABAS_PROGRAM__INVALID_POLICY,
  ABAS_PROGRAM__INVALID_PRIVACY_FLAG,
  ABAS_PROGRAM__INVALID_SCHEMA,
  ABAS_PROGRAM__INVALID_STATUS,
  ABAS_PROGRAM__INVALID_SYSTEM_PROGRAM,
  ABAS_PROGRAM__LEAF_INDEX_OUT_OF_ORDER,
  ABAS_PROGRAM__MALFORMED_ED25519_INSTRUCTION,
  ABAS_PROGRAM__MERKLE_ROOT_MISMATCH,
  ABAS_PROGRAM__MESSAGE_MISMATCH,
  ABAS_PROGRAM__MISSING_ED25519_INSTRUCTION,
  ABAS_PROGRAM__MISSING_REQUIRED_SIGNATURE,
  ABAS_PROGRAM__NOT_AGENT_OPERATOR,
  ABAS_PROGRAM__NOT_ENOUGH_ACCOUNTS,
  ABAS_PROGRAM__SIGNER_MISMATCH,
  ABAS_PROGRAM__SYSCALL_FAILED,
  ABAS_PROGRAM__TOO_MANY_LEAVES,
  type AbasProgramErrorCode,
} from "./codes.js";

/** Each program error code with the name of its variant in the program's Rust `ProgramError` enum. */
export const PROGRAM_ERROR_NAMES = {
  [ABAS_PROGRAM__INVALID_INSTRUCTION]: "InvalidInstruction",
  [ABAS_PROGRAM__INVALID_INSTRUCTION_DATA]: "InvalidInstructionData",
  [ABAS_PROGRAM__INVALID_ACTION_TYPE]: "InvalidActionType",
  [ABAS_PROGRAM__INVALID_PRIVACY_FLAG]: "InvalidPrivacyFlag",
  [ABAS_PROGRAM__INVALID_POLICY]: "InvalidPolicy",
  [ABAS_PROGRAM__INVALID_STATUS]: "InvalidStatus",
  [ABAS_PROGRAM__INVALID_BATCH_SIZE]: "InvalidBatchSize",
  [ABAS_PROGRAM__NOT_ENOUGH_ACCOUNTS]: "NotEnoughAccounts",
  [ABAS_PROGRAM__MISSING_REQUIRED_SIGNATURE]: "MissingRequiredSignature",
  [ABAS_PROGRAM__ACCOUNT_NOT_WRITABLE]: "AccountNotWritable",
  [ABAS_PROGRAM__INVALID_ACCOUNT_OWNER]: "InvalidAccountOwner",
  [ABAS_PROGRAM__INVALID_ACCOUNT_DATA]: "InvalidAccountData",
  [ABAS_PROGRAM__INVALID_PDA]: "InvalidPda",
  [ABAS_PROGRAM__INVALID_SYSTEM_PROGRAM]: "InvalidSystemProgram",
  [ABAS_PROGRAM__INVALID_INSTRUCTIONS_SYSVAR]: "InvalidInstructionsSysvar",
  [ABAS_PROGRAM__INVALID_CREDENTIAL]: "InvalidCredential",
  [ABAS_PROGRAM__INVALID_SCHEMA]: "InvalidSchema",
  [ABAS_PROGRAM__ALREADY_INITIALIZED]: "AlreadyInitialized",
  [ABAS_PROGRAM__NON_CANONICAL_BUMP]: "NonCanonicalBump",
  [ABAS_PROGRAM__NOT_UPGRADE_AUTHORITY]: "NotUpgradeAuthority",
  [ABAS_PROGRAM__INVALID_PROGRAM_DATA]: "InvalidProgramData",
  [ABAS_PROGRAM__AGENT_ALREADY_REGISTERED]: "AgentAlreadyRegistered",
  [ABAS_PROGRAM__NOT_AGENT_OPERATOR]: "NotAgentOperator",
  [ABAS_PROGRAM__AGENT_SUSPENDED]: "AgentSuspended",
  [ABAS_PROGRAM__AGENT_REVOKED]: "AgentRevoked",
  [ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED]: "ActionTypeNotAllowed",
  [ABAS_PROGRAM__AGENT_MISMATCH]: "AgentMismatch",
  [ABAS_PROGRAM__MISSING_ED25519_INSTRUCTION]: "MissingEd25519Instruction",
  [ABAS_PROGRAM__MALFORMED_ED25519_INSTRUCTION]: "MalformedEd25519Instruction",
  [ABAS_PROGRAM__ED25519_OFFSETS_OUTSIDE_INSTRUCTION]: "Ed25519OffsetsOutsideInstruction",
  [ABAS_PROGRAM__SIGNER_MISMATCH]: "SignerMismatch",
  [ABAS_PROGRAM__MESSAGE_MISMATCH]: "MessageMismatch",
  [ABAS_PROGRAM__DUPLICATE_ATTESTATION]: "DuplicateAttestation",
  [ABAS_PROGRAM__DUPLICATE_BATCH]: "DuplicateBatch",
  [ABAS_PROGRAM__LEAF_INDEX_OUT_OF_ORDER]: "LeafIndexOutOfOrder",
  [ABAS_PROGRAM__TOO_MANY_LEAVES]: "TooManyLeaves",
  [ABAS_PROGRAM__MERKLE_ROOT_MISMATCH]: "MerkleRootMismatch",
  [ABAS_PROGRAM__BATCH_ALREADY_COMPLETE]: "BatchAlreadyComplete",
  [ABAS_PROGRAM__ARITHMETIC_OVERFLOW]: "ArithmeticOverflow",
  [ABAS_PROGRAM__CROSS_PROGRAM_INVOCATION_FAILED]: "CrossProgramInvocationFailed",
  [ABAS_PROGRAM__SYSCALL_FAILED]: "SyscallFailed",
} as const satisfies { [P in AbasProgramErrorCode]: string };

export type ProgramErrorName = (typeof PROGRAM_ERROR_NAMES)[AbasProgramErrorCode];

/** True when `code` is one of the custom error codes the program returns. */
export function isProgramErrorCode(code: unknown): code is AbasProgramErrorCode {
  return typeof code === "number" && Object.prototype.hasOwnProperty.call(PROGRAM_ERROR_NAMES, code);
}

/** The Rust variant name of a program error code, or undefined for a code the program does not return. */
export function getProgramErrorName(code: AbasProgramErrorCode): ProgramErrorName;
export function getProgramErrorName(code: number): ProgramErrorName | undefined;
export function getProgramErrorName(code: number): ProgramErrorName | undefined {
  return isProgramErrorCode(code) ? PROGRAM_ERROR_NAMES[code] : undefined;
}

/**
 * The AbasError for a `custom program error` code of our program, or undefined when the code is not
 * one of ours (another program's custom error, for instance the Ed25519 precompile's).
 */
export function programErrorFromCustomCode(
  customCode: number,
  options: { instructionIndex?: number; cause?: unknown } = {},
): AbasError<AbasProgramErrorCode> | undefined {
  if (!isProgramErrorCode(customCode)) return undefined;
  return new AbasError(customCode, {
    programErrorName: PROGRAM_ERROR_NAMES[customCode],
    ...(options.instructionIndex === undefined ? {} : { instructionIndex: options.instructionIndex }),
    ...(options.cause === undefined ? {} : { cause: options.cause }),
  });
}
