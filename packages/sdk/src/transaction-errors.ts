/**
 * Turns a failed transaction into a named AbasError: the program's own codes and the runtime's
 * errors through `@abas/program-client`, plus two cases that only the SDK can name because it
 * knows which instruction creates an account and which account pays.
 */
import {
  ABAS_RUNTIME__INSTRUCTION_FAILED,
  ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE,
  ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_NEW_ACCOUNT,
  ABAS_RUNTIME__TRANSACTION_FAILED,
  AbasError,
  isAbasError,
  type AbasErrorCode,
} from "@abas/errors";
import { getAbasErrorFromTransactionError, withPlainNumbers } from "@abas/program-client";
import {
  isSolanaError,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__ACCOUNT_NOT_FOUND,
  type Address,
} from "@solana/kit";

/** Where in the send pipeline the failure was seen. */
export type TransactionFailureStage = "simulation" | "preflight" | "confirmation";

/**
 * The cause of a mapped transaction error: the ledger's error as JSON and the program logs, which
 * say far more than a code when debugging.
 */
export class TransactionFailure extends Error {
  override readonly name = "TransactionFailure";

  constructor(
    readonly stage: TransactionFailureStage,
    readonly transactionError: unknown,
    readonly logs: readonly string[],
  ) {
    super(
      `The transaction failed in ${stage}: ${JSON.stringify(transactionError)}` +
        (logs.length > 0 ? `\n${logs.join("\n")}` : ""),
    );
  }
}

// The system program's `ResultWithNegativeLamports`: a transfer (here: the rent of a new account)
// larger than the payer's balance. Our program's own codes start at 1000, so a custom error 1
// of one of its instructions can only come from its call to the system program.
const SYSTEM_PROGRAM_INSUFFICIENT_LAMPORTS = "Custom(1)";

export type TransactionContext = Readonly<{
  programId: Address;
  /** The program of each instruction of the transaction, in order. */
  instructionProgramAddresses: readonly Address[];
}>;

/** The same kind of error with another code or cause; AbasError contexts are frozen, so this builds a new one. */
function rebuild(
  error: AbasError,
  code: AbasErrorCode,
  context: object,
  cause: unknown = error.cause,
): AbasError {
  return new AbasError(code, { ...context, cause } as never);
}

function contextWithoutCode(error: AbasError): object {
  const { __code: _code, ...context } = error.context as Record<string, unknown>;
  return context;
}

/** Renames what program-client reports generically when the SDK knows what it means. */
function refine(error: AbasError, { programId, instructionProgramAddresses }: TransactionContext): AbasError {
  if (
    isAbasError(error, ABAS_RUNTIME__TRANSACTION_FAILED) &&
    error.context.transactionError === "AccountNotFound"
  ) {
    // "Attempt to debit an account but found no record of a prior credit": the fee payer was never funded.
    return rebuild(error, ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE, {});
  }
  if (
    isAbasError(error, ABAS_RUNTIME__INSTRUCTION_FAILED) &&
    error.context.instructionError === SYSTEM_PROGRAM_INSUFFICIENT_LAMPORTS &&
    instructionProgramAddresses[error.context.instructionIndex] === programId
  ) {
    return rebuild(error, ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_NEW_ACCOUNT, {
      instructionIndex: error.context.instructionIndex,
    });
  }
  return error;
}

/** The named error of a transaction error reported as RPC JSON (simulation or signature status). */
export function getAbasErrorFromRpcTransactionError(
  transactionError: unknown,
  logs: readonly string[] | null | undefined,
  stage: TransactionFailureStage,
  context: TransactionContext,
): AbasError {
  const plainError = withPlainNumbers(transactionError);
  const failure = new TransactionFailure(stage, plainError, logs ?? []);
  const mapped =
    getAbasErrorFromTransactionError(plainError, context) ??
    new AbasError(ABAS_RUNTIME__TRANSACTION_FAILED, {
      transactionError: JSON.stringify(plainError),
    });
  return refine(rebuild(mapped, mapped.code, contextWithoutCode(mapped), failure), context);
}

/**
 * The named error of a `sendTransaction` that the node refused in preflight, or undefined when the
 * refusal is not a transaction error (the request itself failed).
 */
export function getAbasErrorFromPreflightError(
  error: unknown,
  context: TransactionContext,
): AbasError | undefined {
  const mapped = getAbasErrorFromTransactionError(error, context);
  if (mapped !== undefined) return refine(mapped, context);
  if (!isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE))
    return undefined;
  const transactionError = error.cause;
  if (isSolanaError(transactionError, SOLANA_ERROR__TRANSACTION_ERROR__ACCOUNT_NOT_FOUND)) {
    return new AbasError(ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE, { cause: error });
  }
  return new AbasError(ABAS_RUNTIME__TRANSACTION_FAILED, {
    transactionError: transactionError instanceof Error ? transactionError.message : String(transactionError),
    cause: error,
  });
}
