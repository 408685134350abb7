/**
 * Runs one transaction on the SVM and describes what happened in the terms of the JSON-RPC API:
 * error, fee, balances (lamports and tokens) before and after, logs, compute units, inner instructions, return data.
 * Also decides whether the transaction landed: a validator records a failed transaction when it
 * charged the fee (an instruction failed), and drops it when it could not even do that (unknown
 * fee payer, insufficient funds for the fee, bad signature...).
 */
import type { Address, EncodedAccount } from "@solana/kit";
import { FailedTransactionMetadata, type LiteSVM, type TransactionMetadata } from "litesvm";

import { fromBase58, toBase58, toBase64 } from "../encoding.js";
import { resolveLoadedAddresses, type LoadedAddresses } from "../transactions/address-lookup-tables.js";
import { calculateFee } from "../transactions/fees.js";
import { toRpcTransactionError, type RpcTransactionError } from "../transactions/transaction-error.js";
import type { InnerInstructions, ReturnData, TransactionMeta } from "../transactions/transaction-meta.js";
import { toKitTransaction, type WireTransaction } from "../transactions/wire-transaction.js";
import { nativeSvm, sendWireTransaction, setLamports } from "./native-svm.js";
import { namesTokenProgram, readTokenBalances } from "./token-balances.js";

export interface ExecutionDetails {
  readonly err: RpcTransactionError | null;
  readonly logMessages: readonly string[];
  readonly computeUnitsConsumed: bigint;
  readonly innerInstructions: readonly InnerInstructions[];
  readonly returnData: ReturnData | null;
}

export interface Execution {
  readonly landed: boolean;
  readonly meta: TransactionMeta;
  /** Static keys, then loaded writable, then loaded read-only: the indexes balances use. */
  readonly accountKeys: readonly Address[];
}

export interface Simulation extends ExecutionDetails {
  readonly loadedAddresses: LoadedAddresses;
  /** The transaction's accounts as the simulation left them (empty when it failed). */
  readonly postAccounts: ReadonlyMap<Address, EncodedAccount>;
}

const SIGNATURE_FAILURE: RpcTransactionError = "SignatureFailure";

function readReturnData(meta: TransactionMetadata): ReturnData | null {
  const returnData = meta.returnData();
  const data = returnData.data();
  // Validators record return data only when a program set some.
  if (data.length === 0) return null;
  return { programId: toBase58(returnData.programId()) as Address, data: toBase64(data) };
}

function readInnerInstructions(meta: TransactionMetadata): InnerInstructions[] {
  return meta
    .innerInstructions()
    .map((list, index) => ({
      index,
      instructions: list.map((inner) => {
        const compiled = inner.instruction();
        return {
          programIdIndex: compiled.programIdIndex(),
          accounts: Array.from(compiled.accounts()),
          data: toBase58(compiled.data()),
          stackHeight: inner.stackHeight(),
        };
      }),
    }))
    .filter((entry) => entry.instructions.length > 0);
}

function readDetails(result: TransactionMetadata | FailedTransactionMetadata): ExecutionDetails {
  const failed = result instanceof FailedTransactionMetadata;
  const meta = failed ? result.meta() : result;
  return {
    err: failed ? toRpcTransactionError(result.err()) : null,
    logMessages: meta.logs(),
    computeUnitsConsumed: meta.computeUnitsConsumed(),
    innerInstructions: readInnerInstructions(meta),
    returnData: readReturnData(meta),
  };
}

const NOTHING_RAN: Omit<ExecutionDetails, "err"> = {
  logMessages: [],
  computeUnitsConsumed: 0n,
  innerInstructions: [],
  returnData: null,
};

function loadedAddressesOf(svm: LiteSVM, transaction: WireTransaction): LoadedAddresses {
  return resolveLoadedAddresses(transaction, (address) => {
    const account = svm.getAccount(address);
    return account.exists ? { owner: account.programAddress, data: account.data } : undefined;
  });
}

/**
 * Executes the transaction and commits its effects. `sigVerify: false` when the caller verified
 * the signatures already. Balances are read by key bytes, without a base58 round trip per key.
 */
export function executeTransaction(
  svm: LiteSVM,
  transaction: WireTransaction,
  options: { sigVerify: boolean } = { sigVerify: true },
): Execution {
  const loadedAddresses = loadedAddressesOf(svm, transaction);
  const accountKeys = [
    ...transaction.staticAccountKeys,
    ...loadedAddresses.writable,
    ...loadedAddresses.readonly,
  ];
  const keyBytes = [
    ...transaction.staticAccountKeyBytes,
    ...[...loadedAddresses.writable, ...loadedAddresses.readonly].map(fromBase58),
  ];
  const native = nativeSvm(svm);
  const balances = (): bigint[] => keyBytes.map((key) => native.getBalance(key) ?? 0n);
  const preBalances = balances();
  const movesTokens = namesTokenProgram(accountKeys);
  const preTokenBalances = movesTokens ? readTokenBalances(native, keyBytes) : [];
  let details: ExecutionDetails;
  if (options.sigVerify && transaction.signatures.some(isMissingSignature)) {
    details = { err: SIGNATURE_FAILURE, ...NOTHING_RAN };
  } else {
    svm.withSigverify(options.sigVerify);
    try {
      details = readDetails(sendWireTransaction(native, transaction.bytes, transaction.version === "legacy"));
    } finally {
      svm.withSigverify(true);
    }
  }
  const postBalances = balances();
  const postTokenBalances = movesTokens ? readTokenBalances(native, keyBytes) : [];
  // Every landed transaction pays a fee (at least one signature), so a failure that left the fee
  // payer's balance alone changed nothing at all: it was dropped.
  const landed = details.err === null || postBalances[0] !== preBalances[0];
  return {
    landed,
    accountKeys,
    meta: {
      ...details,
      fee: landed ? calculateFee(transaction) : 0n,
      preBalances,
      postBalances,
      preTokenBalances,
      postTokenBalances,
      loadedAddresses,
    },
  };
}

/**
 * Takes back what a failed execution committed: only the fee (a failed transaction changes its
 * fee payer's balance and nothing else here, since durable nonces are not accepted). Preflight
 * uses it to execute once instead of simulating first.
 */
export function revertFailedExecution(
  svm: LiteSVM,
  transaction: WireTransaction,
  execution: Execution,
): void {
  if (!execution.landed || execution.meta.err === null) return;
  setLamports(nativeSvm(svm), transaction.staticAccountKeyBytes[0]!, execution.meta.preBalances[0]!);
}

const isMissingSignature = (signature: Uint8Array): boolean => signature.every((byte) => byte === 0);

export function simulateTransaction(
  svm: LiteSVM,
  transaction: WireTransaction,
  options: { sigVerify: boolean },
): Simulation {
  const loadedAddresses = loadedAddressesOf(svm, transaction);
  svm.withSigverify(options.sigVerify);
  try {
    const result = svm.simulateTransaction(toKitTransaction(transaction));
    if (result instanceof FailedTransactionMetadata) {
      return { ...readDetails(result), loadedAddresses, postAccounts: new Map() };
    }
    const postAccounts = new Map(result.postAccounts().map((account) => [account.address, account] as const));
    return { ...readDetails(result.meta()), loadedAddresses, postAccounts };
  } catch {
    return { err: SIGNATURE_FAILURE, ...NOTHING_RAN, loadedAddresses, postAccounts: new Map() };
  } finally {
    svm.withSigverify(true);
  }
}
