/**
 * What the ledger keeps about an executed transaction besides its bytes: the status metadata
 * that getTransaction returns. Stored as JSON in the event log (u64 values as decimal strings).
 */
import type { Address } from "@solana/kit";

import type { LoadedAddresses } from "./address-lookup-tables.js";
import type { RpcTransactionError } from "./transaction-error.js";

export interface InnerInstruction {
  readonly programIdIndex: number;
  readonly accounts: readonly number[];
  /** base58 */
  readonly data: string;
  readonly stackHeight: number | null;
}

export interface InnerInstructions {
  readonly index: number;
  readonly instructions: readonly InnerInstruction[];
}

export interface ReturnData {
  readonly programId: Address;
  /** base64 */
  readonly data: string;
}

export interface TransactionMeta {
  readonly err: RpcTransactionError | null;
  readonly fee: bigint;
  readonly preBalances: readonly bigint[];
  readonly postBalances: readonly bigint[];
  readonly logMessages: readonly string[];
  readonly computeUnitsConsumed: bigint;
  readonly innerInstructions: readonly InnerInstructions[];
  readonly loadedAddresses: LoadedAddresses;
  readonly returnData: ReturnData | null;
}

interface StoredMeta {
  err: RpcTransactionError | null;
  fee: string;
  preBalances: string[];
  postBalances: string[];
  logMessages: string[];
  computeUnitsConsumed: string;
  innerInstructions: InnerInstructions[];
  loadedAddresses: LoadedAddresses;
  returnData: ReturnData | null;
}

export function serializeTransactionMeta(meta: TransactionMeta): string {
  const stored: StoredMeta = {
    err: meta.err,
    fee: meta.fee.toString(),
    preBalances: meta.preBalances.map(String),
    postBalances: meta.postBalances.map(String),
    logMessages: [...meta.logMessages],
    computeUnitsConsumed: meta.computeUnitsConsumed.toString(),
    innerInstructions: [...meta.innerInstructions],
    loadedAddresses: meta.loadedAddresses,
    returnData: meta.returnData,
  };
  return JSON.stringify(stored);
}

export function deserializeTransactionMeta(json: string): TransactionMeta {
  const stored = JSON.parse(json) as StoredMeta;
  return {
    err: stored.err,
    fee: BigInt(stored.fee),
    preBalances: stored.preBalances.map(BigInt),
    postBalances: stored.postBalances.map(BigInt),
    logMessages: stored.logMessages,
    computeUnitsConsumed: BigInt(stored.computeUnitsConsumed),
    innerInstructions: stored.innerInstructions,
    loadedAddresses: stored.loadedAddresses,
    returnData: stored.returnData,
  };
}
