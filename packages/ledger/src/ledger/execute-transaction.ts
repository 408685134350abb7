/**
 * Runs one transaction on the SVM and describes what happened in the terms of the JSON-RPC API:
 * error, fee, balances before and after, logs, compute units, inner instructions, return data.
 * Also decides whether the transaction landed: a validator records a failed transaction when it
 * charged the fee (an instruction failed), and drops it when it could not even do that (unknown
 * fee payer, insufficient funds for the fee, bad signature...).
 */
import type { Address, EncodedAccount } from "@solana/kit";
import { FailedTransactionMetadata, type LiteSVM, type TransactionMetadata } from "litesvm";

import { toBase58, toBase64 } from "../encoding.js";
import { resolveLoadedAddresses, type LoadedAddresses } from "../transactions/address-lookup-tables.js";
import { calculateFee } from "../transactions/fees.js";
import { toRpcTransactionError, type RpcTransactionError } from "../transactions/transaction-error.js";
import type { InnerInstructions, ReturnData, TransactionMeta } from "../transactions/transaction-meta.js";
import { toKitTransaction, type WireTransaction } from "../transactions/wire-transaction.js";

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

export function executeTransaction(svm: LiteSVM, transaction: WireTransaction): Execution {
  const loadedAddresses = loadedAddressesOf(svm, transaction);
  const accountKeys = [
    ...transaction.staticAccountKeys,
    ...loadedAddresses.writable,
    ...loadedAddresses.readonly,
  ];
  const balances = (): bigint[] => accountKeys.map((address) => svm.getBalance(address) ?? 0n);
  const preBalances = balances();
  let details: ExecutionDetails;
  try {
    details = readDetails(svm.sendTransaction(toKitTransaction(transaction)));
  } catch {
    // litesvm's wrapper throws before executing when a signature is missing (all zeros).
    details = { err: SIGNATURE_FAILURE, ...NOTHING_RAN };
  }
  const postBalances = balances();
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
      loadedAddresses,
    },
  };
}

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
