/** Signed transactions for tests, as base64 wire bytes ready for a raw sendTransaction. */
import { getTransferSolInstruction } from "@solana-program/system";
import {
  appendTransactionMessageInstructions,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";

import { rpcCall } from "./ledger-under-test.js";

export interface SignedTransaction {
  readonly signature: string;
  readonly base64: string;
}

export async function latestBlockhash(
  rpcUrl: string,
): Promise<{ blockhash: Blockhash; lastValidBlockHeight: bigint }> {
  const reply = await rpcCall(rpcUrl, "getLatestBlockhash");
  const value = (reply.result as { value: { blockhash: Blockhash; lastValidBlockHeight: number } }).value;
  return { blockhash: value.blockhash, lastValidBlockHeight: BigInt(value.lastValidBlockHeight) };
}

export async function signInstructions(
  payer: KeyPairSigner,
  instructions: readonly Instruction[],
  lifetime: { blockhash: Blockhash; lastValidBlockHeight: bigint },
): Promise<SignedTransaction> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const transaction = await signTransactionMessageWithSigners(message);
  return {
    signature: getSignatureFromTransaction(transaction),
    base64: getBase64EncodedWireTransaction(transaction),
  };
}

export async function signTransfer(
  payer: KeyPairSigner,
  recipient: Address,
  lamports: bigint,
  lifetime: { blockhash: Blockhash; lastValidBlockHeight: bigint },
): Promise<SignedTransaction> {
  return await signInstructions(
    payer,
    [getTransferSolInstruction({ source: payer, destination: recipient, amount: lamports })],
    lifetime,
  );
}

export async function sendBase64(rpcUrl: string, transaction: SignedTransaction, config: object = {}) {
  return await rpcCall(rpcUrl, "sendTransaction", [transaction.base64, { encoding: "base64", ...config }]);
}
