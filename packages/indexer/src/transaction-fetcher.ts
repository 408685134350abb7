import type { Address, Commitment, Rpc, Signature, SolanaRpcApi } from "@solana/kit";

import { rpcRequestOptions } from "./rpc-request-options.js";
import { decodeProgramTransaction, type ProgramTransaction } from "./transaction-decoder.js";

/**
 * A listed transaction that `getTransaction` does not return yet (an RPC node behind the one that
 * listed it). The poll fails and is retried; skipping it would lose it for good.
 */
export class TransactionNotYetAvailableError extends Error {
  override readonly name = "TransactionNotYetAvailableError";
}

/** Fetches and decodes transactions concurrently; the result keeps the order of `signatures`. */
export async function fetchProgramTransactions(
  rpc: Rpc<SolanaRpcApi>,
  programId: Address,
  signatures: readonly Signature[],
  commitment: Commitment,
): Promise<ProgramTransaction[]> {
  return await Promise.all(
    signatures.map(async (signature) => {
      const response = await rpc
        .getTransaction(signature, {
          encoding: "json",
          maxSupportedTransactionVersion: 0,
          commitment: commitment === "finalized" ? "finalized" : "confirmed",
        })
        .send(rpcRequestOptions());
      if (response === null) {
        throw new TransactionNotYetAvailableError(`transaction ${signature} is listed but not available yet`);
      }
      return decodeProgramTransaction(signature, response, programId);
    }),
  );
}
