import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  type Blockhash,
  type Instruction,
  type TransactionSigner,
} from "@solana/kit";

import { buildComputeBudgetInstructions } from "./compute-budget.js";

export type BlockhashLifetime = Readonly<{ blockhash: Blockhash; lastValidBlockHeight: bigint }>;

export type TransactionToSend = Readonly<{
  /** Pays the fee; other signers are taken from the instructions' account metas. */
  feePayer: TransactionSigner;
  instructions: readonly Instruction[];
  /**
   * Names the transaction's shape when every transaction of that shape consumes the same units (a
   * batch root of n items, a given chunk of a batch's leaves): the first is sized by simulation,
   * the next ones from it, without a simulation each (`SendSettings.knownComputeUnits`).
   */
  computeUnitsKey?: string;
}>;

/** A v0 message: the compute-budget instructions first, then the transaction's own. */
export function buildTransactionMessage(
  { feePayer, instructions }: TransactionToSend,
  lifetime: BlockhashLifetime,
  computeUnitLimit: number,
  priorityFeeMicroLamports: bigint | undefined,
) {
  return pipe(
    createTransactionMessage({ version: 0 }),
    (message) => setTransactionMessageFeePayerSigner(feePayer, message),
    (message) => setTransactionMessageLifetimeUsingBlockhash(lifetime, message),
    (message) =>
      appendTransactionMessageInstructions(
        [...buildComputeBudgetInstructions({ computeUnitLimit, priorityFeeMicroLamports }), ...instructions],
        message,
      ),
  );
}

export type TransactionMessageToSend = ReturnType<typeof buildTransactionMessage>;
