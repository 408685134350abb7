/**
 * Transactions and their status metadata as getTransaction returns them, in the `json`,
 * `jsonParsed` (accounts annotated; instructions decoded, see parsed-instruction.ts), `base64` and `base58`
 * encodings; and as getBlock's `transactionDetails: "accounts"` lists them (signatures and
 * annotated account keys, balances only). A transaction's own instructions are at stack height 1.
 */
import { BPF_LOADER_UPGRADEABLE_ADDRESS } from "@abas/program-client";
import type { Address } from "@solana/kit";

import { fromBase58, toBase58, toBase64 } from "../encoding.js";
import type { LoadedAddresses } from "../transactions/address-lookup-tables.js";
import type { InnerInstructions, TokenBalance, TransactionMeta } from "../transactions/transaction-meta.js";
import { isStaticAccountWritable, type WireTransaction } from "../transactions/wire-transaction.js";
import { renderParsedInstruction, type InstructionParsers } from "./parsed-instruction.js";
import { RESERVED_ACCOUNT_KEYS } from "./reserved-account-keys.js";
import { uiTokenAmount } from "./token-amount.js";

export type TransactionEncoding = "json" | "jsonParsed" | "base64" | "base58";

/** How a transaction is shown: its encoding, and the instruction parsers `jsonParsed` decodes with. */
export interface TransactionRendering {
  readonly encoding: TransactionEncoding;
  readonly parsers: InstructionParsers;
}

/** The stack height of a transaction's own instructions (those they invoke are 2 and up). */
const TRANSACTION_LEVEL_STACK_HEIGHT = 1;

function renderJson(transaction: WireTransaction): unknown {
  return {
    signatures: transaction.signatures.map(toBase58),
    message: {
      accountKeys: transaction.staticAccountKeys,
      header: transaction.header,
      recentBlockhash: transaction.recentBlockhash,
      instructions: transaction.instructions.map((instruction) => ({
        programIdIndex: instruction.programIdIndex,
        accounts: instruction.accounts,
        data: toBase58(instruction.data),
        stackHeight: TRANSACTION_LEVEL_STACK_HEIGHT,
      })),
      ...(transaction.version === 0
        ? {
            addressTableLookups: transaction.addressTableLookups.map((lookup) => ({
              accountKey: lookup.accountKey,
              writableIndexes: lookup.writableIndexes,
              readonlyIndexes: lookup.readonlyIndexes,
            })),
          }
        : {}),
    },
  };
}

function allKeys(transaction: WireTransaction, loaded: LoadedAddresses): readonly Address[] {
  return [...transaction.staticAccountKeys, ...loaded.writable, ...loaded.readonly];
}

/**
 * Every account key, the loaded ones after the static ones, with signer, writable and source.
 * As on a validator, a key the header (or a lookup table) makes writable shows read-only when the
 * runtime never write-locks it (a reserved key), or when it is a program an instruction calls and
 * the upgradeable loader is not among the keys.
 */
function annotatedAccountKeys(transaction: WireTransaction, loaded: LoadedAddresses): unknown[] {
  const staticCount = transaction.staticAccountKeys.length;
  const keys = allKeys(transaction, loaded);
  const called = new Set(transaction.instructions.map((instruction) => instruction.programIdIndex));
  const demotesPrograms = !keys.includes(BPF_LOADER_UPGRADEABLE_ADDRESS);
  return keys.map((pubkey, index) => ({
    pubkey,
    signer: index < transaction.header.numRequiredSignatures,
    writable:
      (index < staticCount
        ? isStaticAccountWritable(transaction, index)
        : index < staticCount + loaded.writable.length) &&
      !RESERVED_ACCOUNT_KEYS.has(pubkey) &&
      !(demotesPrograms && called.has(index)),
    source: index < staticCount ? "transaction" : "lookupTable",
  }));
}

function renderParsed(
  transaction: WireTransaction,
  loaded: LoadedAddresses,
  parsers: InstructionParsers,
): unknown {
  const keys = allKeys(transaction, loaded);
  return {
    signatures: transaction.signatures.map(toBase58),
    message: {
      accountKeys: annotatedAccountKeys(transaction, loaded),
      recentBlockhash: transaction.recentBlockhash,
      instructions: transaction.instructions.map((instruction) =>
        renderParsedInstruction(
          parsers,
          keys[instruction.programIdIndex]!,
          instruction.accounts.map((index) => keys[index]!),
          instruction.data,
          TRANSACTION_LEVEL_STACK_HEIGHT,
        ),
      ),
      ...(transaction.version === 0 ? { addressTableLookups: transaction.addressTableLookups } : {}),
    },
  };
}

export function renderTransaction(
  transaction: WireTransaction,
  loaded: LoadedAddresses,
  { encoding, parsers }: TransactionRendering,
): unknown {
  switch (encoding) {
    case "base64":
      return [toBase64(transaction.bytes), "base64"];
    case "base58":
      return [toBase58(transaction.bytes), "base58"];
    case "jsonParsed":
      return renderParsed(transaction, loaded, parsers);
    case "json":
      return renderJson(transaction);
  }
}

/** Inner instructions as they were recorded, or decoded with `parsers` (jsonParsed). */
function renderInnerInstructions(
  inner: readonly InnerInstructions[],
  keys: readonly Address[],
  parsers: InstructionParsers | undefined,
): unknown {
  if (parsers === undefined) return inner;
  return inner.map(({ index, instructions }) => ({
    index,
    instructions: instructions.map((instruction) =>
      renderParsedInstruction(
        parsers,
        keys[instruction.programIdIndex]!,
        instruction.accounts.map((i) => keys[i]!),
        fromBase58(instruction.data),
        instruction.stackHeight,
      ),
    ),
  }));
}

const renderTokenBalance = (balance: TokenBalance): unknown => ({
  accountIndex: balance.accountIndex,
  mint: balance.mint,
  uiTokenAmount: uiTokenAmount(balance.amount, { decimals: balance.decimals }),
  owner: balance.owner,
  programId: balance.programId,
});

/** The transaction as getBlock's `transactionDetails: "accounts"` lists it. */
export function renderTransactionAccounts(transaction: WireTransaction, loaded: LoadedAddresses): unknown {
  return {
    signatures: transaction.signatures.map(toBase58),
    accountKeys: annotatedAccountKeys(transaction, loaded),
  };
}

/** What every meta holds: the outcome, the fee and the balances. */
function renderBalances(meta: TransactionMeta) {
  return {
    err: meta.err,
    status: meta.err === null ? { Ok: null } : { Err: meta.err },
    fee: meta.fee,
    preBalances: meta.preBalances,
    postBalances: meta.postBalances,
    preTokenBalances: meta.preTokenBalances.map(renderTokenBalance),
    postTokenBalances: meta.postTokenBalances.map(renderTokenBalance),
  };
}

/** The meta of getBlock's `transactionDetails: "accounts"`: balances, and rewards when shown. */
export function renderBalancesMeta(meta: TransactionMeta, showRewards: boolean): unknown {
  return { ...renderBalances(meta), ...(showRewards ? { rewards: [] } : {}) };
}

/**
 * The full meta; `showRewards` false (getBlock's `rewards: false`) gives `rewards: null`. The
 * jsonParsed meta leaves out loadedAddresses: its account keys name each key's source.
 */
export function renderMeta(
  meta: TransactionMeta,
  transaction: WireTransaction,
  { encoding, parsers }: TransactionRendering,
  showRewards: boolean,
): unknown {
  const keys = allKeys(transaction, meta.loadedAddresses);
  const { preTokenBalances, postTokenBalances, ...outcome } = renderBalances(meta);
  return {
    ...outcome,
    innerInstructions: renderInnerInstructions(
      meta.innerInstructions,
      keys,
      encoding === "jsonParsed" ? parsers : undefined,
    ),
    logMessages: meta.logMessages,
    preTokenBalances,
    postTokenBalances,
    rewards: showRewards ? [] : null,
    ...(encoding === "jsonParsed" ? {} : { loadedAddresses: meta.loadedAddresses }),
    computeUnitsConsumed: meta.computeUnitsConsumed,
    ...(meta.returnData === null
      ? {}
      : { returnData: { programId: meta.returnData.programId, data: [meta.returnData.data, "base64"] } }),
  };
}
