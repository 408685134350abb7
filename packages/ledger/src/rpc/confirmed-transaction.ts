/**
 * A recorded transaction as getTransaction and getBlock return it: the transaction in the
 * requested encoding (or, for getBlock's `transactionDetails: "accounts"`, its signatures and
 * account keys), its status metadata, and its version when the client says which versions it
 * supports (a client that does not gets -32015 for a v0 transaction, as from a validator).
 */
import type { Address } from "@solana/kit";

import type { TransactionRecord } from "../storage/log-record.js";
import { parseWireTransaction } from "../transactions/wire-transaction.js";
import { RpcError, RpcErrorCode } from "./json-rpc.js";
import { optionalEnum, optionalInteger, type Config } from "./params.js";
import { instructionParsers } from "./parsed-instruction.js";
import {
  renderBalancesMeta,
  renderMeta,
  renderTransaction,
  renderTransactionAccounts,
  type TransactionRendering,
} from "./transaction-encoding.js";

/** The highest transaction version a client may say it supports (a u8 on a validator). */
const MAX_TRANSACTION_VERSION = 255;

export interface TransactionView extends TransactionRendering {
  readonly maxSupportedTransactionVersion: number | undefined;
  /** "accounts": signatures and account keys, balances only (getBlock). */
  readonly details: "full" | "accounts";
  /** False for getBlock's `rewards: false`. */
  readonly showRewards: boolean;
}

/** The view a request's config asks for; jsonParsed decodes the instructions of the ABAS program at `abasProgramId` too. */
export function readTransactionView(
  config: Config,
  abasProgramId: Address,
  block: Pick<TransactionView, "details" | "showRewards"> = { details: "full", showRewards: true },
): TransactionView {
  return {
    encoding: optionalEnum(config, "encoding", ["json", "jsonParsed", "base64", "base58"] as const) ?? "json",
    maxSupportedTransactionVersion: optionalInteger(
      config,
      "maxSupportedTransactionVersion",
      0,
      MAX_TRANSACTION_VERSION,
    ),
    parsers: instructionParsers(abasProgramId),
    ...block,
  };
}

export function renderConfirmedTransaction(
  record: TransactionRecord,
  view: TransactionView,
): { transaction: unknown; meta: unknown; version?: "legacy" | 0 } {
  const transaction = parseWireTransaction(record.transaction);
  if (view.maxSupportedTransactionVersion === undefined && transaction.version !== "legacy") {
    throw new RpcError(
      RpcErrorCode.UNSUPPORTED_TRANSACTION_VERSION,
      `Transaction version (${transaction.version}) is not supported by the requesting client. ` +
        'Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
    );
  }
  const loaded = record.meta.loadedAddresses;
  return {
    ...(view.details === "accounts"
      ? {
          transaction: renderTransactionAccounts(transaction, loaded),
          meta: renderBalancesMeta(record.meta, view.showRewards),
        }
      : {
          transaction: renderTransaction(transaction, loaded, view),
          meta: renderMeta(record.meta, transaction, view, view.showRewards),
        }),
    ...(view.maxSupportedTransactionVersion === undefined ? {} : { version: transaction.version }),
  };
}
