/**
 * A recorded transaction as getTransaction and getBlock return it: the transaction in the
 * requested encoding, its status metadata, and its version when the client says which versions
 * it supports (a client that does not gets -32015 for a v0 transaction, as from a validator).
 */
import type { TransactionRecord } from "../storage/log-record.js";
import { parseWireTransaction } from "../transactions/wire-transaction.js";
import { RpcError, RpcErrorCode } from "./json-rpc.js";
import { optionalEnum, optionalInteger, type Config } from "./params.js";
import { renderMeta, renderTransaction, type TransactionEncoding } from "./transaction-encoding.js";

export interface TransactionView {
  readonly encoding: TransactionEncoding;
  readonly maxSupportedTransactionVersion: number | undefined;
}

export function readTransactionView(config: Config): TransactionView {
  return {
    encoding: optionalEnum(config, "encoding", ["json", "jsonParsed", "base64", "base58"] as const) ?? "json",
    maxSupportedTransactionVersion: optionalInteger(config, "maxSupportedTransactionVersion", 0, 0),
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
  return {
    transaction: renderTransaction(transaction, record.meta.loadedAddresses, view.encoding),
    meta: renderMeta(record.meta, transaction, view.encoding),
    ...(view.maxSupportedTransactionVersion === undefined ? {} : { version: transaction.version }),
  };
}
