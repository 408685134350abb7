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
  AbasErrorCode,
  AbasProgramErrorCode,
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
  [ABAS_SDK__ACCOUNT_DATA_TOO_SHORT]: AccountDecodingContext & {
    field: string;
    requiredSize: number;
    actualSize: number;
  };
  [ABAS_SDK__MALFORMED_ACCOUNT_DATA]: AccountDecodingContext & { field: string; reason: string };
  [ABAS_SDK__INVALID_KEY_PAIR]: { reason: string };
};

/**
 * The context each code carries (`undefined` for codes without one). Every code must appear in
 * `SpecifiedContext`, so adding a code without deciding its context fails the type check.
 */
export type AbasErrorContext = { [P in AbasErrorCode]: SpecifiedContext[P] };
