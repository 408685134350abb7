/**
 * Reduces the shapes a failed transaction's error comes in to one: the JSON of RPC responses
 * (`{ InstructionError: [1, { Custom: 1203 }] }`, `"BlockhashNotFound"`), the objects of the
 * `litesvm` package (`FailedTransactionMetadata`, `TransactionErrorInstructionError`, numeric
 * fieldless errors), and @solana/kit's SolanaErrors (followed through their `cause`).
 */
import {
  SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM,
  SOLANA_ERROR__INSTRUCTION_ERROR__UNKNOWN,
  SOLANA_ERROR__TRANSACTION_ERROR__ACCOUNT_IN_USE,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_FEE,
  SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_RENT,
  SOLANA_ERROR__TRANSACTION_ERROR__SIGNATURE_FAILURE,
  isSolanaError,
} from "@solana/kit";

export type TransactionFailure =
  | Readonly<{ kind: "instruction"; instructionIndex: number; customCode?: number; description: string }>
  | Readonly<{ kind: "transaction"; name: string; accountIndex?: number }>;

/** litesvm's `TransactionErrorFieldless` values, in their declared order (the values are indexes). */
const LITESVM_FIELDLESS_TRANSACTION_ERRORS = [
  "AccountInUse",
  "AccountLoadedTwice",
  "AccountNotFound",
  "ProgramAccountNotFound",
  "InsufficientFundsForFee",
  "InvalidAccountForFee",
  "AlreadyProcessed",
  "BlockhashNotFound",
  "CallChainTooDeep",
  "MissingSignatureForFee",
  "InvalidAccountIndex",
  "SignatureFailure",
  "InvalidProgramForExecution",
  "SanitizeFailure",
  "ClusterMaintenance",
  "AccountBorrowOutstanding",
  "WouldExceedMaxBlockCostLimit",
  "UnsupportedVersion",
  "InvalidWritableAccount",
  "WouldExceedMaxAccountCostLimit",
  "WouldExceedAccountDataBlockLimit",
  "TooManyAccountLocks",
  "AddressLookupTableNotFound",
  "InvalidAddressLookupTableOwner",
  "InvalidAddressLookupTableData",
  "InvalidAddressLookupTableIndex",
  "InvalidRentPayingAccount",
  "WouldExceedMaxVoteCostLimit",
  "WouldExceedAccountDataTotalLimit",
  "MaxLoadedAccountsDataSizeExceeded",
  "ResanitizationNeeded",
  "InvalidLoadedAccountsDataSizeLimit",
  "UnbalancedTransaction",
  "ProgramCacheHitMaxLimit",
  "CommitCancelled",
] as const;

/** kit's codes for the transaction errors that ABAS names. */
const KIT_TRANSACTION_ERROR_NAMES = new Map<number, string>([
  [SOLANA_ERROR__TRANSACTION_ERROR__SIGNATURE_FAILURE, "SignatureFailure"],
  [SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_FEE, "InsufficientFundsForFee"],
  [SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_RENT, "InsufficientFundsForRent"],
  [SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND, "BlockhashNotFound"],
  [SOLANA_ERROR__TRANSACTION_ERROR__ACCOUNT_IN_USE, "AccountInUse"],
  [SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED, "AlreadyProcessed"],
]);

// kit numbers its instruction errors from SOLANA_ERROR__INSTRUCTION_ERROR__UNKNOWN, one per runtime variant.
const KIT_INSTRUCTION_ERROR_RANGE_SIZE = 1000;

// A cause chain deeper than this is not a transaction error we know.
const MAX_DEPTH = 8;

/** Runtime error names are PascalCase identifiers; anything else is not a transaction error. */
const isErrorName = (value: string): boolean => /^[A-Z][A-Za-z0-9]*$/.test(value);

type AnyObject = Record<string, unknown>;
const isObject = (value: unknown): value is AnyObject => typeof value === "object" && value !== null;
/** A non-negative integer index or code as a number; kit's RPC responses give them as bigints. */
function toIndex(value: unknown): number | undefined {
  const number = typeof value === "bigint" ? Number(value) : value;
  return typeof number === "number" && Number.isSafeInteger(number) && number >= 0 ? number : undefined;
}

function callMethod(target: AnyObject, method: string): unknown {
  const fn = target[method];
  return typeof fn === "function" ? (fn as () => unknown).call(target) : undefined;
}

/** The detail of an instruction error: `{ Custom: n }` (RPC), `{ code: n }` (litesvm), a name, or a number. */
function instructionFailure(instructionIndex: number, detail: unknown): TransactionFailure {
  if (isObject(detail)) {
    const customCode = toIndex(detail.Custom ?? detail.code);
    if (customCode !== undefined) {
      return { kind: "instruction", instructionIndex, customCode, description: `Custom(${customCode})` };
    }
    const [name] = Object.keys(detail);
    return { kind: "instruction", instructionIndex, description: name ?? "unknown" };
  }
  return { kind: "instruction", instructionIndex, description: String(detail) };
}

function fromSolanaError(
  error: AnyObject & { context: AnyObject },
  depth: number,
): TransactionFailure | undefined {
  if (isSolanaError(error, SOLANA_ERROR__INSTRUCTION_ERROR__CUSTOM)) {
    const { index, code } = error.context;
    return { kind: "instruction", instructionIndex: index, customCode: code, description: `Custom(${code})` };
  }
  const code = error.context.__code;
  const instructionIndex = toIndex(error.context.index);
  if (
    typeof code === "number" &&
    code >= SOLANA_ERROR__INSTRUCTION_ERROR__UNKNOWN &&
    code < SOLANA_ERROR__INSTRUCTION_ERROR__UNKNOWN + KIT_INSTRUCTION_ERROR_RANGE_SIZE &&
    instructionIndex !== undefined
  ) {
    return { kind: "instruction", instructionIndex, description: String(error.message) };
  }
  const name = typeof code === "number" ? KIT_TRANSACTION_ERROR_NAMES.get(code) : undefined;
  if (name !== undefined) {
    const accountIndex = toIndex(error.context.accountIndex);
    return accountIndex === undefined
      ? { kind: "transaction", name }
      : { kind: "transaction", name, accountIndex };
  }
  return describeTransactionFailure(error.cause, depth + 1);
}

function fromObject(error: AnyObject, depth: number): TransactionFailure | undefined {
  if (error.name === "SolanaError" && isObject(error.context)) {
    return fromSolanaError(error as AnyObject & { context: AnyObject }, depth);
  }
  // RPC JSON
  const rpcInstructionError = error.InstructionError;
  const rpcInstructionIndex = Array.isArray(rpcInstructionError)
    ? toIndex(rpcInstructionError[0])
    : undefined;
  if (Array.isArray(rpcInstructionError) && rpcInstructionIndex !== undefined) {
    return instructionFailure(rpcInstructionIndex, rpcInstructionError[1]);
  }
  const rentAccountIndex = isObject(error.InsufficientFundsForRent)
    ? toIndex(error.InsufficientFundsForRent.account_index)
    : undefined;
  if (rentAccountIndex !== undefined) {
    return { kind: "transaction", name: "InsufficientFundsForRent", accountIndex: rentAccountIndex };
  }
  // litesvm: FailedTransactionMetadata, then TransactionErrorInstructionError
  if (typeof error.meta === "function" && typeof error.err === "function") {
    return describeTransactionFailure(callMethod(error, "err"), depth + 1);
  }
  const litesvmInstructionIndex = toIndex(error.index);
  if (litesvmInstructionIndex !== undefined && typeof error.err === "function") {
    return instructionFailure(litesvmInstructionIndex, callMethod(error, "err"));
  }
  // litesvm's other transaction errors are classes named TransactionError<Name>
  const className = (error.constructor as { name?: unknown } | undefined)?.name;
  if (typeof className === "string" && className.startsWith("TransactionError") && className.length > 16) {
    const name = className.slice("TransactionError".length);
    const accountIndex = toIndex(error.accountIndex);
    return accountIndex === undefined
      ? { kind: "transaction", name }
      : { kind: "transaction", name, accountIndex };
  }
  if (error instanceof Error) return describeTransactionFailure(error.cause, depth + 1);
  // Any other RPC enum variant with data, such as { DuplicateInstruction: 2 }
  const [name, ...otherKeys] = Object.keys(error);
  return name !== undefined && otherKeys.length === 0 && isErrorName(name)
    ? { kind: "transaction", name }
    : undefined;
}

/** What failed, from any supported error shape; undefined when the shape is not recognised. */
export function describeTransactionFailure(error: unknown, depth = 0): TransactionFailure | undefined {
  if (depth > MAX_DEPTH) return undefined;
  if (typeof error === "string") return isErrorName(error) ? { kind: "transaction", name: error } : undefined;
  if (typeof error === "number") {
    const name = LITESVM_FIELDLESS_TRANSACTION_ERRORS[error];
    return name === undefined ? undefined : { kind: "transaction", name };
  }
  return isObject(error) ? fromObject(error, depth) : undefined;
}
