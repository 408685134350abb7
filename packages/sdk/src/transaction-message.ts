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
