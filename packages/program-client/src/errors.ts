import {
  ABAS_RUNTIME__ACCOUNT_IN_USE,
  ABAS_RUNTIME__ALREADY_PROCESSED,
  ABAS_RUNTIME__BLOCKHASH_NOT_FOUND,
  ABAS_RUNTIME__ED25519_SIGNATURE_VERIFICATION_FAILED,
  ABAS_RUNTIME__INSTRUCTION_FAILED,
  ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE,
  ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_RENT,
  ABAS_RUNTIME__TRANSACTION_FAILED,
  ABAS_RUNTIME__TRANSACTION_SIGNATURE_VERIFICATION_FAILED,
  AbasError,
  isProgramErrorCode,
  programErrorFromCustomCode,
  type AbasProgramErrorCode,
  type AbasRuntimeErrorCode,
} from "@abas/errors";
import type { Address } from "@solana/kit";

import { ED25519_PROGRAM_ADDRESS } from "./constants.js";
import { describeTransactionFailure, type TransactionFailure } from "./transaction-error-shapes.js";

/**
 * The named program error inside a failed transaction's error, or undefined when the transaction
 * did not fail with one of our program's codes. Accepts RPC JSON
 * (`{ InstructionError: [index, { Custom: n }] }`), litesvm results and errors, and kit SolanaErrors.
 */
export function getProgramErrorFromTransactionError(
  error: unknown,
): AbasError<AbasProgramErrorCode> | undefined {
  const failure = describeTransactionFailure(error);
  if (failure?.kind !== "instruction" || !isProgramErrorCode(failure.customCode)) return undefined;
  return programErrorFromCustomCode(failure.customCode, {
    instructionIndex: failure.instructionIndex,
    cause: error,
  });
}

export type RuntimeErrorOptions = Readonly<{
  /**
   * The program of each instruction of the transaction, in order. With it, a custom error of the
   * Ed25519 precompile's instruction is named as a signature that does not verify.
   */
  instructionProgramAddresses?: readonly Address[];
}>;

function transactionLevelError(
  failure: Extract<TransactionFailure, { kind: "transaction" }>,
  cause: unknown,
): AbasError<AbasRuntimeErrorCode> {
  switch (failure.name) {
    case "SignatureFailure":
      return new AbasError(ABAS_RUNTIME__TRANSACTION_SIGNATURE_VERIFICATION_FAILED, { cause });
    case "InsufficientFundsForFee":
      return new AbasError(ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE, { cause });
    case "InsufficientFundsForRent":
      if (failure.accountIndex === undefined) break;
      return new AbasError(ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_RENT, {
        accountIndex: failure.accountIndex,
        cause,
      });
    case "BlockhashNotFound":
      return new AbasError(ABAS_RUNTIME__BLOCKHASH_NOT_FOUND, { cause });
    case "AccountInUse":
      return new AbasError(ABAS_RUNTIME__ACCOUNT_IN_USE, { cause });
    case "AlreadyProcessed":
      return new AbasError(ABAS_RUNTIME__ALREADY_PROCESSED, { cause });
  }
  return new AbasError(ABAS_RUNTIME__TRANSACTION_FAILED, { transactionError: failure.name, cause });
}

/**
 * The named runtime error of a failed transaction whose failure is not one of our program's codes:
 * a signature or fee problem, an expired blockhash, the Ed25519 precompile rejecting the agent's
 * signature, another program's failure. Undefined for program errors and unrecognised shapes.
 */
export function getRuntimeErrorFromTransactionError(
  error: unknown,
  { instructionProgramAddresses }: RuntimeErrorOptions = {},
): AbasError<AbasRuntimeErrorCode> | undefined {
  const failure = describeTransactionFailure(error);
  if (failure === undefined) return undefined;
  if (failure.kind === "transaction") return transactionLevelError(failure, error);
  if (isProgramErrorCode(failure.customCode)) return undefined;
  const { instructionIndex, customCode } = failure;
  if (
    customCode !== undefined &&
    instructionProgramAddresses?.[instructionIndex] === ED25519_PROGRAM_ADDRESS
  ) {
    return new AbasError(ABAS_RUNTIME__ED25519_SIGNATURE_VERIFICATION_FAILED, {
      instructionIndex,
      precompileErrorCode: customCode,
      cause: error,
    });
  }
  return new AbasError(ABAS_RUNTIME__INSTRUCTION_FAILED, {
    instructionIndex,
    instructionError: failure.description,
    cause: error,
  });
}

/** The program error of a failed transaction if it has one, else its runtime error. */
export function getAbasErrorFromTransactionError(
  error: unknown,
  options: RuntimeErrorOptions = {},
): AbasError<AbasProgramErrorCode | AbasRuntimeErrorCode> | undefined {
  return getProgramErrorFromTransactionError(error) ?? getRuntimeErrorFromTransactionError(error, options);
}
