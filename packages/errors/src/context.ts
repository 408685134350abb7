import type {
  ABAS_RUNTIME__ACCOUNT_IN_USE,
  ABAS_RUNTIME__ALREADY_PROCESSED,
  ABAS_RUNTIME__BLOCKHASH_NOT_FOUND,
  ABAS_RUNTIME__ED25519_SIGNATURE_VERIFICATION_FAILED,
  ABAS_RUNTIME__INSTRUCTION_FAILED,
  ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE,
  ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_RENT,
  ABAS_RUNTIME__TRANSACTION_FAILED,
  ABAS_RUNTIME__TRANSACTION_SIGNATURE_VERIFICATION_FAILED,
  ABAS_RUNTIME__TRANSACTION_CONFIRMATION_TIMEOUT,
  ABAS_RUNTIME__BLOCK_HEIGHT_EXCEEDED,
  ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_NEW_ACCOUNT,
  ABAS_RUNTIME__RPC_REQUEST_FAILED,
  ABAS_RUNTIME__AGENT_NOT_REGISTERED,
  ABAS_RUNTIME__BATCH_LEAVES_UNREADABLE,
  ABAS_RUNTIME__ATTESTATION_NOT_FOUND,
  ABAS_RUNTIME__BATCH_NOT_FOUND,
  ABAS_RUNTIME__TRANSACTION_NOT_FOUND,
  ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE,
  ABAS_RUNTIME__BATCH_LEAVES_NOT_PUBLISHED,
  ABAS_RUNTIME__ATTESTOR_BATCH_FAILED,
  ABAS_RUNTIME__ATTESTOR_SENDER_STOPPED,
  ABAS_SDK__ACCOUNT_DATA_TOO_SHORT,
  ABAS_SDK__EMPTY_MERKLE_TREE,
  ABAS_SDK__INTEGER_OUT_OF_RANGE,
  ABAS_SDK__INVALID_ACCOUNT_DISCRIMINATOR,
  ABAS_SDK__INVALID_ACCOUNT_SIZE,
  ABAS_SDK__INVALID_ACTION_TYPE,
  ABAS_SDK__INVALID_ACTION_TYPE_MASK,
  ABAS_SDK__INVALID_AGENT_STATUS,
  ABAS_SDK__INVALID_BATCH_SIZE,
  ABAS_SDK__INVALID_BYTE_LENGTH,
  ABAS_SDK__INVALID_HEX_STRING_CHARACTERS,
  ABAS_SDK__INVALID_HEX_STRING_LENGTH,
  ABAS_SDK__INVALID_KEY_PAIR,
  ABAS_SDK__INVALID_LEAF_COUNT,
  ABAS_SDK__INVALID_LEAF_START_INDEX,
  ABAS_SDK__INVALID_MERKLE_LEAF_INDEX,
  ABAS_SDK__INVALID_PRIVACY_FLAG_TYPE,
  ABAS_SDK__MALFORMED_ACCOUNT_DATA,
  ABAS_SDK__UNKNOWN_ACCOUNT_TYPE,
  ABAS_SDK__INVALID_ACTION_HASH,
  ABAS_SDK__INVALID_SALT,
  ABAS_SDK__INVALID_ACTION_PAYLOAD,
  ABAS_SDK__INVALID_CLIENT_CONFIG,
  ABAS_SDK__INVALID_ARGUMENT,
  ABAS_SDK__ATTESTATION_INDEX_REQUIRED,
  ABAS_SDK__CANNOT_CANONICALIZE,
  ABAS_SDK__ATTESTOR_CLOSED,
  ABAS_SDK__ATTESTOR_QUEUE_FULL,
  ABAS_SDK__ATTESTOR_QUEUE_LOCKED,
  ABAS_SDK__ATTESTOR_QUEUE_CORRUPT,
  ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE,
  ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER,
  ABAS_SDK__INVALID_PROXY_CONFIG,
  ABAS_SDK__RECEIPTS_FOLDER_NOT_FOUND,
  ABAS_SDK__RECEIPT_FILE_UNREADABLE,
  ABAS_SDK__RECEIPT_CALL_MISMATCH,
  ABAS_SDK__RECEIPT_VERIFICATION_FAILED,
  ABAS_SDK__MCP_SERVER_NOT_STARTED,
  ABAS_SDK__TOOL_CALL_NOT_RECORDED,
  ABAS_SDK__TOOL_RESULT_NOT_JSON,
  ABAS_SDK__ACTION_NOT_RECORDED,
  AbasErrorCode,
  AbasProgramErrorCode,
} from "./codes.js";
import type {
  ABAS_API__INVALID_PARAMETER,
  ABAS_API__INVALID_CURSOR,
  ABAS_API__INVALID_TIME_RANGE,
  ABAS_API__MALFORMED_REQUEST,
  ABAS_API__CURSOR_EXPIRED,
  ABAS_API__API_KEY_MISSING,
  ABAS_API__API_KEY_MALFORMED,
  ABAS_API__API_KEY_UNKNOWN,
  ABAS_API__API_KEY_REVOKED,
  ABAS_API__RATE_LIMITED,
  ABAS_API__ROUTE_NOT_FOUND,
  ABAS_API__ATTESTATION_NOT_FOUND,
  ABAS_API__AGENT_NOT_FOUND,
  ABAS_API__DATABASE_UNAVAILABLE,
  ABAS_API__LEDGER_UNREACHABLE,
  ABAS_API__INDEXER_NEVER_RAN,
  ABAS_API__INDEXER_STALE,
  ABAS_API__INDEXER_BEHIND,
  ABAS_API__INDEX_DIVERGED,
  ABAS_API__SHUTTING_DOWN,
  ABAS_API__TOO_MANY_FAILED_API_KEYS,
  ABAS_API__INTERNAL_ERROR,
  ABAS_API__API_KEY_NOT_FOUND,
  ABAS_API__API_KEY_ALREADY_REVOKED,
  ABAS_API__INVALID_API_KEY_NAME,
  ABAS_API__INVALID_SERVER_CONFIG,
  ABAS_API__TOO_MANY_API_KEYS,
  ABAS_API__NETWORK_ERROR,
  ABAS_API__REQUEST_TIMEOUT,
  ABAS_API__UNEXPECTED_RESPONSE,
} from "./codes.js";
import type { ProgramErrorName } from "./program-errors.js";

/** What every program error carries: its Rust name and, when known, the failing instruction. */
export type ProgramErrorContext = {
  programErrorName: ProgramErrorName;
  instructionIndex?: number;
};

/** Names the account layout a decoder was reading, so one code serves every account type. */
type AccountDecodingContext = { accountType: string };

type SpecifiedContext = { [P in AbasProgramErrorCode]: ProgramErrorContext } & {
  [ABAS_RUNTIME__TRANSACTION_SIGNATURE_VERIFICATION_FAILED]: undefined;
  [ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE]: undefined;
  [ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_RENT]: { accountIndex: number };
  [ABAS_RUNTIME__BLOCKHASH_NOT_FOUND]: undefined;
  [ABAS_RUNTIME__ACCOUNT_IN_USE]: undefined;
  [ABAS_RUNTIME__ALREADY_PROCESSED]: undefined;
  [ABAS_RUNTIME__TRANSACTION_FAILED]: { transactionError: string };
  [ABAS_RUNTIME__ED25519_SIGNATURE_VERIFICATION_FAILED]: {
    instructionIndex: number;
    precompileErrorCode: number;
  };
  [ABAS_RUNTIME__INSTRUCTION_FAILED]: { instructionIndex: number; instructionError: string };
  [ABAS_RUNTIME__TRANSACTION_CONFIRMATION_TIMEOUT]: { signature: string; timeoutMs: number };
  [ABAS_RUNTIME__BLOCK_HEIGHT_EXCEEDED]: { attempts: number };
  [ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_NEW_ACCOUNT]: { instructionIndex: number };
  [ABAS_RUNTIME__RPC_REQUEST_FAILED]: {
    method: string;
    /** The failure's own words, outermost first (e.g. `fetch failed: connect ECONNREFUSED 127.0.0.1:8899`). */
    reason: string;
  };
  [ABAS_RUNTIME__AGENT_NOT_REGISTERED]: { agent: string };
  [ABAS_RUNTIME__BATCH_LEAVES_UNREADABLE]: {
    batchAddress: string;
    leavesPublished: number;
    leavesFound: number;
    reason: string;
  };
  [ABAS_RUNTIME__ATTESTATION_NOT_FOUND]: { address: string; programId: string };
  [ABAS_RUNTIME__BATCH_NOT_FOUND]: { batchAddress: string; programId: string };
  [ABAS_RUNTIME__TRANSACTION_NOT_FOUND]: { signature: string };
  [ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE]: { batchAddress: string; index: number; itemCount: number };
  // The receipts hold the proofs and salts of a batch whose root is already recorded: the caller
  // needs them to finish publishing, and they exist nowhere else.
  [ABAS_RUNTIME__BATCH_LEAVES_NOT_PUBLISHED]: {
    batchAddress: string;
    commitSignature: string;
    leavesPublished: number;
    itemCount: number;
    receipts: readonly unknown[];
  };
  [ABAS_RUNTIME__ATTESTOR_BATCH_FAILED]: {
    queueDir: string;
    batchId: number;
    itemCount: number;
    attempts: number;
  };
  [ABAS_RUNTIME__ATTESTOR_SENDER_STOPPED]: { queueDir: string; reason: string };

  [ABAS_SDK__INVALID_ACTION_TYPE]: { actionType: unknown };
  [ABAS_SDK__INVALID_ACTION_TYPE_MASK]: { mask: unknown };
  [ABAS_SDK__INVALID_PRIVACY_FLAG_TYPE]: { privacyMode: unknown };
  [ABAS_SDK__INVALID_AGENT_STATUS]: { status: unknown };
  [ABAS_SDK__INVALID_BATCH_SIZE]: { itemCount: unknown; maxItemCount: number };
  [ABAS_SDK__INVALID_LEAF_COUNT]: { leafCount: number; maxLeafCount: number };
  [ABAS_SDK__INVALID_LEAF_START_INDEX]: { startIndex: unknown; leafCount: number; maxItemCount: number };
  [ABAS_SDK__INTEGER_OUT_OF_RANGE]: { field: string; value: unknown; min: number; max: number };
  [ABAS_SDK__INVALID_BYTE_LENGTH]: { field: string; expectedLength: number; actualLength: number };
  [ABAS_SDK__INVALID_HEX_STRING_LENGTH]: { expectedLength: number; actualLength: number };
  // The position only, never the string: hex input may be a secret salt.
  [ABAS_SDK__INVALID_HEX_STRING_CHARACTERS]: { position: number };
  [ABAS_SDK__EMPTY_MERKLE_TREE]: undefined;
  [ABAS_SDK__INVALID_MERKLE_LEAF_INDEX]: { index: unknown; leafCount: number };
  [ABAS_SDK__UNKNOWN_ACCOUNT_TYPE]: { discriminator: number };
  [ABAS_SDK__INVALID_ACCOUNT_DISCRIMINATOR]: AccountDecodingContext & { expected: number; actual: number };
  [ABAS_SDK__INVALID_ACCOUNT_SIZE]: AccountDecodingContext & { expectedSize: number; actualSize: number };
  [ABAS_SDK__ACCOUNT_DATA_TOO_SHORT]: AccountDecodingContext & { requiredSize: number; actualSize: number };
  // The field when the decoder can tell it (a range check, a bool, text), absent otherwise.
  [ABAS_SDK__MALFORMED_ACCOUNT_DATA]: AccountDecodingContext & { field?: string; reason: string };
  [ABAS_SDK__INVALID_KEY_PAIR]: { reason: string };
  [ABAS_SDK__INVALID_ACTION_HASH]: { field: string; reason: string };
  // The reason only, never the value: a salt is a secret.
  [ABAS_SDK__INVALID_SALT]: { reason: string };
  [ABAS_SDK__INVALID_ACTION_PAYLOAD]: { reason: string };
  [ABAS_SDK__INVALID_CLIENT_CONFIG]: { field: string; reason: string };
  [ABAS_SDK__INVALID_ARGUMENT]: { argument: string; reason: string };
  [ABAS_SDK__ATTESTATION_INDEX_REQUIRED]: { searchingFor: string };
  [ABAS_SDK__CANNOT_CANONICALIZE]: { path: string; reason: string };
  [ABAS_SDK__ATTESTOR_CLOSED]: { queueDir: string };
  [ABAS_SDK__ATTESTOR_QUEUE_FULL]: { queueDir: string; maxQueuedActions: number };
  [ABAS_SDK__ATTESTOR_QUEUE_LOCKED]: { queueDir: string; lockFile: string; pid: number };
  [ABAS_SDK__ATTESTOR_QUEUE_CORRUPT]: { queueFile: string; line: number; reason: string };
  [ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE]: { queueDir: string; reason: string };
  /** `actionHash`: thrown by a `record`, whose action the new owner may have read (look it up before recording it again). */
  [ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER]: { queueDir: string; actionHash?: string };
  [ABAS_SDK__INVALID_PROXY_CONFIG]: { problems: string };
  [ABAS_SDK__RECEIPTS_FOLDER_NOT_FOUND]: { folder: string; reason: string };
  [ABAS_SDK__RECEIPT_FILE_UNREADABLE]: { file: string; reason: string };
  [ABAS_SDK__RECEIPT_CALL_MISMATCH]: { file: string; actionHash: string; callHash: string };
  [ABAS_SDK__RECEIPT_VERIFICATION_FAILED]: { file: string; failedChecks: string };
  [ABAS_SDK__MCP_SERVER_NOT_STARTED]: { command: string; reason: string };
  [ABAS_SDK__TOOL_CALL_NOT_RECORDED]: { tool: string; reason: string };
  [ABAS_SDK__TOOL_RESULT_NOT_JSON]: { tool: string; reason: string };
  [ABAS_SDK__ACTION_NOT_RECORDED]: { actionType: string; reason: string };

  [ABAS_API__INVALID_PARAMETER]: { parameter: string; reason: string };
  [ABAS_API__INVALID_CURSOR]: { reason: string };
  [ABAS_API__INVALID_TIME_RANGE]: { since: number; until: number };
  [ABAS_API__MALFORMED_REQUEST]: { reason: string };
  [ABAS_API__CURSOR_EXPIRED]: undefined;
  [ABAS_API__API_KEY_MISSING]: undefined;
  [ABAS_API__API_KEY_MALFORMED]: { reason: string };
  [ABAS_API__API_KEY_UNKNOWN]: undefined;
  [ABAS_API__API_KEY_REVOKED]: undefined;
  [ABAS_API__RATE_LIMITED]: { limit: number; windowSeconds: number; retryAfterSeconds: number };
  [ABAS_API__TOO_MANY_FAILED_API_KEYS]: { limit: number; windowSeconds: number; retryAfterSeconds: number };
  [ABAS_API__ROUTE_NOT_FOUND]: { method: string; path: string };
  [ABAS_API__ATTESTATION_NOT_FOUND]: { id: string };
  [ABAS_API__AGENT_NOT_FOUND]: { agent: string };
  [ABAS_API__DATABASE_UNAVAILABLE]: undefined;
  [ABAS_API__LEDGER_UNREACHABLE]: { reason: string };
  [ABAS_API__INDEXER_NEVER_RAN]: undefined;
  [ABAS_API__INDEXER_STALE]: { secondsSinceHeartbeat: number; staleAfterSeconds: number };
  [ABAS_API__INDEXER_BEHIND]: { lagSlots: number; maxLagSlots: number };
  [ABAS_API__INDEX_DIVERGED]: { reason: string };
  [ABAS_API__SHUTTING_DOWN]: undefined;
  [ABAS_API__INTERNAL_ERROR]: { requestId: string };
  [ABAS_API__API_KEY_NOT_FOUND]: { id: string };
  [ABAS_API__API_KEY_ALREADY_REVOKED]: { id: string };
  [ABAS_API__INVALID_API_KEY_NAME]: { reason: string };
  [ABAS_API__INVALID_SERVER_CONFIG]: { variable: string; reason: string };
  [ABAS_API__TOO_MANY_API_KEYS]: { limit: number };
  [ABAS_API__NETWORK_ERROR]: { url: string };
  [ABAS_API__REQUEST_TIMEOUT]: { url: string; timeoutMs: number };
  [ABAS_API__UNEXPECTED_RESPONSE]: { status: number; reason: string };
};

/**
 * The context each code carries (`undefined` for codes without one). Every code must appear in
 * `SpecifiedContext`, so adding a code without deciding its context fails the type check.
 */
export type AbasErrorContext = { [P in AbasErrorCode]: SpecifiedContext[P] };
