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

/** A token account's balance before or after a transaction (its index among the transaction's accounts). */
export interface TokenBalance {
  readonly accountIndex: number;
  readonly mint: Address;
  readonly owner: Address;
  readonly programId: Address;
  readonly amount: bigint;
  readonly decimals: number;
}

export interface TransactionMeta {
  readonly err: RpcTransactionError | null;
  readonly fee: bigint;
  readonly preBalances: readonly bigint[];
  readonly postBalances: readonly bigint[];
  readonly preTokenBalances: readonly TokenBalance[];
  readonly postTokenBalances: readonly TokenBalance[];
  readonly logMessages: readonly string[];
  readonly computeUnitsConsumed: bigint;
  readonly innerInstructions: readonly InnerInstructions[];
  readonly loadedAddresses: LoadedAddresses;
  readonly returnData: ReturnData | null;
}

type StoredTokenBalance = Omit<TokenBalance, "amount"> & { amount: string };

interface StoredMeta {
  err: RpcTransactionError | null;
  fee: string;
  preBalances: string[];
  postBalances: string[];
  /** Absent in records written before token balances were kept. */
  preTokenBalances?: StoredTokenBalance[];
  postTokenBalances?: StoredTokenBalance[];
  logMessages: string[];
  computeUnitsConsumed: string;
  innerInstructions: InnerInstructions[];
  loadedAddresses: LoadedAddresses;
  returnData: ReturnData | null;
}

const storeTokenBalance = (balance: TokenBalance): StoredTokenBalance => ({
  ...balance,
  amount: balance.amount.toString(),
});

const loadTokenBalance = (stored: StoredTokenBalance): TokenBalance => ({
  ...stored,
  amount: BigInt(stored.amount),
});

export function serializeTransactionMeta(meta: TransactionMeta): string {
  const stored: StoredMeta = {
    err: meta.err,
    fee: meta.fee.toString(),
    preBalances: meta.preBalances.map(String),
    postBalances: meta.postBalances.map(String),
    preTokenBalances: meta.preTokenBalances.map(storeTokenBalance),
    postTokenBalances: meta.postTokenBalances.map(storeTokenBalance),
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
    preTokenBalances: (stored.preTokenBalances ?? []).map(loadTokenBalance),
    postTokenBalances: (stored.postTokenBalances ?? []).map(loadTokenBalance),
    logMessages: stored.logMessages,
    computeUnitsConsumed: BigInt(stored.computeUnitsConsumed),
    innerInstructions: stored.innerInstructions,
    loadedAddresses: stored.loadedAddresses,
    returnData: stored.returnData,
  };
}
