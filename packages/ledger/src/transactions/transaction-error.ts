/**
 * Transaction errors as the JSON-RPC API shows them (`"BlockhashNotFound"`,
 * `{ "InstructionError": [1, { "Custom": 1203 }] }`) and as a validator words them in messages
 * ("Transaction simulation failed: Blockhash not found"), converted from litesvm's objects.
 */
import type { FailedTransactionMetadata } from "litesvm";

export type RpcInstructionError = string | { readonly Custom: number } | { readonly BorshIoError: string };

export type RpcTransactionError =
  | string
  | { readonly InstructionError: readonly [number, RpcInstructionError] }
  | { readonly DuplicateInstruction: number }
  | { readonly InsufficientFundsForRent: { readonly account_index: number } }
  | { readonly ProgramExecutionTemporarilyRestricted: { readonly account_index: number } };

/** litesvm's `TransactionErrorFieldless`, by value. */
const TRANSACTION_ERRORS: Readonly<Record<string, string>> = {
  AccountInUse: "Account in use",
  AccountLoadedTwice: "Account loaded twice",
  AccountNotFound: "Attempt to debit an account but found no record of a prior credit.",
  ProgramAccountNotFound: "Attempt to load a program that does not exist",
  InsufficientFundsForFee: "Insufficient funds for fee",
  InvalidAccountForFee: "This account may not be used to pay transaction fees",
  AlreadyProcessed: "This transaction has already been processed",
  BlockhashNotFound: "Blockhash not found",
  CallChainTooDeep: "Loader call chain is too deep",
  MissingSignatureForFee: "Transaction requires a fee but has no signature present",
  InvalidAccountIndex: "Transaction contains an invalid account reference",
  SignatureFailure: "Transaction did not pass signature verification",
  InvalidProgramForExecution: "This program may not be used for executing instructions",
  SanitizeFailure: "Transaction failed to sanitize accounts offsets correctly",
  ClusterMaintenance: "Transactions are currently disabled due to cluster maintenance",
  AccountBorrowOutstanding: "Transaction processing left an account with an outstanding borrowed reference",
  WouldExceedMaxBlockCostLimit: "Transaction would exceed max Block Cost Limit",
  UnsupportedVersion: "Transaction version is unsupported",
  InvalidWritableAccount: "Transaction loads a writable account that cannot be written",
  WouldExceedMaxAccountCostLimit: "Transaction would exceed max account limit within the block",
  WouldExceedAccountDataBlockLimit: "Transaction would exceed account data limit within the block",
  TooManyAccountLocks: "Transaction locked too many accounts",
  AddressLookupTableNotFound: "Transaction loads an address table account that doesn't exist",
  InvalidAddressLookupTableOwner: "Transaction loads an address table account with an invalid owner",
  InvalidAddressLookupTableData: "Transaction loads an address table account with invalid data",
  InvalidAddressLookupTableIndex: "Transaction address table lookup uses an invalid index",
  InvalidRentPayingAccount: "Transaction leaves an account with a lower balance than rent-exempt minimum",
  WouldExceedMaxVoteCostLimit: "Transaction would exceed max Vote Cost Limit",
  WouldExceedAccountDataTotalLimit: "Transaction would exceed total account data limit",
  MaxLoadedAccountsDataSizeExceeded: "Transaction exceeded max loaded accounts data size cap",
  ResanitizationNeeded: "ResanitizationNeeded",
  InvalidLoadedAccountsDataSizeLimit:
    "LoadedAccountsDataSizeLimit set for transaction must be greater than 0.",
  UnbalancedTransaction: "Sum of account balances before and after transaction do not match",
  ProgramCacheHitMaxLimit: "Program cache hit max limit",
  CommitCancelled: "CommitCancelled",
};
const TRANSACTION_ERROR_NAMES = Object.keys(TRANSACTION_ERRORS);

/** litesvm's `InstructionErrorFieldless`, by value, with the runtime's wording. */
const INSTRUCTION_ERRORS: readonly (readonly [string, string])[] = [
  ["GenericError", "generic instruction error"],
  ["InvalidArgument", "invalid program argument"],
  ["InvalidInstructionData", "invalid instruction data"],
  ["InvalidAccountData", "invalid account data for instruction"],
  ["AccountDataTooSmall", "account data too small for instruction"],
  ["InsufficientFunds", "insufficient funds for instruction"],
  ["IncorrectProgramId", "incorrect program id for instruction"],
  ["MissingRequiredSignature", "missing required signature for instruction"],
  ["AccountAlreadyInitialized", "instruction requires an uninitialized account"],
  ["UninitializedAccount", "instruction requires an initialized account"],
  ["UnbalancedInstruction", "sum of account balances before and after instruction do not match"],
  ["ModifiedProgramId", "instruction modified the program id of an account"],
  ["ExternalAccountLamportSpend", "instruction spent from the balance of an account it does not own"],
  ["ExternalAccountDataModified", "instruction modified data of an account it does not own"],
  ["ReadonlyLamportChange", "instruction changed the balance of a read-only account"],
  ["ReadonlyDataModified", "instruction modified data of a read-only account"],
  ["DuplicateAccountIndex", "instruction contains duplicate accounts"],
  ["ExecutableModified", "instruction changed executable bit of an account"],
  ["RentEpochModified", "instruction modified rent epoch of an account"],
  ["NotEnoughAccountKeys", "insufficient account keys for instruction"],
  ["AccountDataSizeChanged", "program other than the account's owner changed the size of the account data"],
  ["AccountNotExecutable", "instruction expected an executable account"],
  ["AccountBorrowFailed", "instruction tries to borrow reference for an account which is already borrowed"],
  ["AccountBorrowOutstanding", "instruction left account with an outstanding borrowed reference"],
  ["DuplicateAccountOutOfSync", "instruction modifications of multiply-passed account differ"],
  ["InvalidError", "program returned invalid error code"],
  ["ExecutableDataModified", "instruction changed executable accounts data"],
  ["ExecutableLamportChange", "instruction changed the balance of an executable account"],
  ["ExecutableAccountNotRentExempt", "executable accounts must be rent exempt"],
  ["UnsupportedProgramId", "Unsupported program id"],
  ["CallDepth", "Cross-program invocation call depth too deep"],
  ["MissingAccount", "An account required by the instruction is missing"],
  ["ReentrancyNotAllowed", "Cross-program invocation reentrancy not allowed for this instruction"],
  ["MaxSeedLengthExceeded", "Length of the seed is too long for address generation"],
  ["InvalidSeeds", "Provided seeds do not result in a valid address"],
  ["InvalidRealloc", "Failed to reallocate account data"],
  ["ComputationalBudgetExceeded", "Computational budget exceeded"],
  ["PrivilegeEscalation", "Cross-program invocation with unauthorized signer or writable account"],
  ["ProgramEnvironmentSetupFailure", "Failed to create program execution environment"],
  ["ProgramFailedToComplete", "Program failed to complete"],
  ["ProgramFailedToCompile", "Program failed to compile"],
  ["Immutable", "Account is immutable"],
  ["IncorrectAuthority", "Incorrect authority provided"],
  ["AccountNotRentExempt", "An account does not have enough lamports to be rent-exempt"],
  ["InvalidAccountOwner", "Invalid account owner"],
  ["ArithmeticOverflow", "Program arithmetic overflowed"],
  ["UnsupportedSysvar", "Unsupported sysvar"],
  ["IllegalOwner", "Provided owner is not allowed"],
  [
    "MaxAccountsDataAllocationsExceeded",
    "Accounts data allocations exceeded the maximum allowed per transaction",
  ],
  ["MaxAccountsExceeded", "Max accounts exceeded"],
  ["MaxInstructionTraceLengthExceeded", "Max instruction trace length exceeded"],
  ["BuiltinProgramsMustConsumeComputeUnits", "Builtin programs must consume compute units"],
  ["BorshIoError", "Failed to serialize or deserialize account data"],
];
const INSTRUCTION_ERROR_MESSAGES = new Map(INSTRUCTION_ERRORS);

type LitesvmTransactionError = ReturnType<FailedTransactionMetadata["err"]>;

function instructionErrorFrom(value: unknown): RpcInstructionError {
  if (typeof value === "number") return INSTRUCTION_ERRORS[value]?.[0] ?? "GenericError";
  if (typeof value === "object" && value !== null) {
    if ("code" in value && typeof value.code === "number") return { Custom: value.code };
    if ("msg" in value && typeof value.msg === "string") return { BorshIoError: value.msg };
  }
  return "GenericError";
}

/** litesvm's error object (a numeric enum or one of its error classes) as RPC JSON. */
export function toRpcTransactionError(error: LitesvmTransactionError): RpcTransactionError {
  if (typeof error === "number") return TRANSACTION_ERROR_NAMES[error] ?? "SanitizeFailure";
  const kind = error.constructor.name;
  if ("err" in error && typeof error.err === "function") {
    return { InstructionError: [error.index, instructionErrorFrom(error.err())] };
  }
  if (kind === "TransactionErrorDuplicateInstruction" && "index" in error) {
    return { DuplicateInstruction: error.index };
  }
  if ("accountIndex" in error) {
    return kind === "TransactionErrorProgramExecutionTemporarilyRestricted"
      ? { ProgramExecutionTemporarilyRestricted: { account_index: error.accountIndex } }
      : { InsufficientFundsForRent: { account_index: error.accountIndex } };
  }
  return "SanitizeFailure";
}

function describeInstructionError(error: RpcInstructionError): string {
  if (typeof error === "string") return INSTRUCTION_ERROR_MESSAGES.get(error) ?? error;
  if ("Custom" in error) return `custom program error: 0x${error.Custom.toString(16)}`;
  return `Failed to serialize or deserialize account data: ${error.BorshIoError}`;
}

/** The validator's wording of an error, as used in "Transaction simulation failed: ...". */
export function describeTransactionError(error: RpcTransactionError): string {
  if (typeof error === "string") return TRANSACTION_ERRORS[error] ?? error;
  if ("InstructionError" in error) {
    const [index, inner] = error.InstructionError;
    return `Error processing Instruction ${index}: ${describeInstructionError(inner)}`;
  }
  if ("DuplicateInstruction" in error) {
    return `Transaction contains a duplicate instruction (${error.DuplicateInstruction}) that is not allowed`;
  }
  if ("InsufficientFundsForRent" in error) {
    return `Transaction results in an account (${error.InsufficientFundsForRent.account_index}) with insufficient funds for rent`;
  }
  return `Execution of the program referenced by account at index ${error.ProgramExecutionTemporarilyRestricted.account_index} is temporarily restricted.`;
}
