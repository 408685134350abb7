/**
 * Turning kit instructions into signed v0 transactions and running them on a LiteSVM.
 * Shared by the test harness and the upgradeable-loader deployment, so both submit the same way.
 */
import {
  addSignersToTransactionMessage,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getTransactionSize,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
  type Instruction,
  type Transaction,
  type TransactionSigner,
} from "@solana/kit";
import { FailedTransactionMetadata, type LiteSVM, type TransactionMetadata } from "litesvm";

export type SvmResult = TransactionMetadata | FailedTransactionMetadata;

export interface Submission {
  readonly result: SvmResult;
  /** Size of the signed wire transaction in bytes. */
  readonly size: number;
}

/** Builds a v0 transaction paid by `feePayer` with the SVM's latest blockhash, signed by every signer it names. */
export async function signInstructions(
  svm: LiteSVM,
  feePayer: TransactionSigner,
  instructions: readonly Instruction[],
  extraSigners: readonly TransactionSigner[] = [],
): Promise<Transaction> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(feePayer, m),
    (m) => svm.setTransactionMessageLifetimeUsingLatestBlockhash(m),
    (m) => appendTransactionMessageInstructions(instructions, m),
    (m) => addSignersToTransactionMessage([...extraSigners], m),
  );
  return await signTransactionMessageWithSigners(message);
}

/**
 * Sends the instructions as one transaction, then expires the blockhash so that an identical
 * transaction sent next is a new transaction rather than a replay.
 */
export async function submitInstructions(
  svm: LiteSVM,
  feePayer: TransactionSigner,
  instructions: readonly Instruction[],
  extraSigners: readonly TransactionSigner[] = [],
): Promise<Submission> {
  const transaction = await signInstructions(svm, feePayer, instructions, extraSigners);
  const result = svm.sendTransaction(transaction);
  svm.expireBlockhash();
  return { result, size: getTransactionSize(transaction) };
}

export function isFailure(result: SvmResult): result is FailedTransactionMetadata {
  return result instanceof FailedTransactionMetadata;
}

/** The logs of a result, successful or not. */
export function logsOf(result: SvmResult): string[] {
  return isFailure(result) ? result.meta().logs() : result.logs();
}

/** Throws with the logs when the transaction failed; for arranging state, not for assertions under test. */
export function assertSubmitted(submission: Submission, what: string): TransactionMetadata {
  const { result } = submission;
  if (isFailure(result)) {
    throw new Error(`${what} failed: ${result.toString()}\n${logsOf(result).join("\n")}`);
  }
  return result;
}
