import type { Address, Commitment, Signature } from "@solana/kit";

import { sendJsonRpcBatch } from "./json-rpc-batch.js";
import {
  decodeProgramTransaction,
  type ProgramTransaction,
  type TransactionJsonResponse,
} from "./transaction-decoder.js";

/**
 * A listed transaction that `getTransaction` does not return yet (an RPC node behind the one that
 * listed it). The poll fails and is retried; skipping it would lose it for good.
 */
export class TransactionNotYetAvailableError extends Error {
  override readonly name = "TransactionNotYetAvailableError";
}

/** The JSON as the node sends it: numbers are plain (kit's client would make them bigints). */
type TransactionJson = Omit<TransactionJsonResponse, "slot"> & { slot: number };

/**
 * Fetches and decodes transactions with ONE JSON-RPC batch of `getTransaction` calls; the result
 * keeps the order of `signatures`.
 */
export async function fetchProgramTransactions(
  rpcUrl: string,
  programId: Address,
  signatures: readonly Signature[],
  commitment: Commitment,
): Promise<ProgramTransaction[]> {
  const options = {
    encoding: "json",
    maxSupportedTransactionVersion: 0,
    commitment: commitment === "finalized" ? "finalized" : "confirmed",
  };
  const responses = await sendJsonRpcBatch(
    rpcUrl,
    signatures.map((signature) => ({ method: "getTransaction", params: [signature, options] })),
  );
  return responses.map((response, i) => {
    const signature = signatures[i]!;
    if (response === null) {
      throw new TransactionNotYetAvailableError(`transaction ${signature} is listed but not available yet`);
    }
    const json = response as TransactionJson;
    return decodeProgramTransaction(signature, { ...json, slot: BigInt(json.slot) }, programId);
  });
}
