/**
 * Transactions and their status metadata as getTransaction returns them, in the `json`,
 * `jsonParsed` (accounts annotated; instructions decoded, see parsed-instruction.ts), `base64` and `base58`
 * encodings.
 */
import type { Address } from "@solana/kit";

import { fromBase58, toBase58, toBase64 } from "../encoding.js";
import type { LoadedAddresses } from "../transactions/address-lookup-tables.js";
import type { InnerInstructions, TokenBalance, TransactionMeta } from "../transactions/transaction-meta.js";
import { isStaticAccountWritable, type WireTransaction } from "../transactions/wire-transaction.js";
import { renderParsedInstruction } from "./parsed-instruction.js";
import { uiTokenAmount } from "./token-amount.js";

export type TransactionEncoding = "json" | "jsonParsed" | "base64" | "base58";

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
        stackHeight: null,
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

function renderParsed(transaction: WireTransaction, loaded: LoadedAddresses): unknown {
  const keys = allKeys(transaction, loaded);
  const staticCount = transaction.staticAccountKeys.length;
  return {
    signatures: transaction.signatures.map(toBase58),
    message: {
      accountKeys: keys.map((pubkey, index) => ({
        pubkey,
        signer: index < transaction.header.numRequiredSignatures,
        writable:
          index < staticCount
            ? isStaticAccountWritable(transaction, index)
            : index < staticCount + loaded.writable.length,
        source: index < staticCount ? "transaction" : "lookupTable",
      })),
      recentBlockhash: transaction.recentBlockhash,
      instructions: transaction.instructions.map((instruction) =>
        renderParsedInstruction(
          keys[instruction.programIdIndex]!,
          instruction.accounts.map((index) => keys[index]!),
          instruction.data,
          null,
        ),
      ),
      ...(transaction.version === 0 ? { addressTableLookups: transaction.addressTableLookups } : {}),
    },
  };
}

export function renderTransaction(
  transaction: WireTransaction,
  loaded: LoadedAddresses,
  encoding: TransactionEncoding,
): unknown {
  switch (encoding) {
    case "base64":
      return [toBase64(transaction.bytes), "base64"];
    case "base58":
      return [toBase58(transaction.bytes), "base58"];
    case "jsonParsed":
      return renderParsed(transaction, loaded);
    case "json":
      return renderJson(transaction);
  }
}

function renderInnerInstructions(
  inner: readonly InnerInstructions[],
  keys: readonly Address[],
  parsed: boolean,
): unknown {
  if (!parsed) return inner;
  return inner.map(({ index, instructions }) => ({
    index,
    instructions: instructions.map((instruction) =>
      renderParsedInstruction(
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
  uiTokenAmount: uiTokenAmount(balance.amount, balance.decimals),
  owner: balance.owner,
  programId: balance.programId,
});

export function renderMeta(
  meta: TransactionMeta,
  transaction: WireTransaction,
  encoding: TransactionEncoding,
): unknown {
  const keys = allKeys(transaction, meta.loadedAddresses);
  return {
    err: meta.err,
    status: meta.err === null ? { Ok: null } : { Err: meta.err },
    fee: meta.fee,
    preBalances: meta.preBalances,
    postBalances: meta.postBalances,
    innerInstructions: renderInnerInstructions(meta.innerInstructions, keys, encoding === "jsonParsed"),
    logMessages: meta.logMessages,
    preTokenBalances: meta.preTokenBalances.map(renderTokenBalance),
    postTokenBalances: meta.postTokenBalances.map(renderTokenBalance),
    rewards: [],
    loadedAddresses: meta.loadedAddresses,
    computeUnitsConsumed: meta.computeUnitsConsumed,
    ...(meta.returnData === null
      ? {}
      : { returnData: { programId: meta.returnData.programId, data: [meta.returnData.data, "base64"] } }),
  };
}
