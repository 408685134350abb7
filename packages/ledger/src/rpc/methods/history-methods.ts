/** Transaction history: getSignatureStatuses, getTransaction, getSignaturesForAddress. */
import { invalidParams } from "../json-rpc.js";
import {
  addressParam,
  checkCommonConfig,
  configParam,
  optionalBoolean,
  optionalInteger,
  positional,
  requiredParam,
  signatureParam,
  type Config,
} from "../params.js";
import { withContext, type LedgerRpcMethod } from "../rpc-context.js";
import { readTransactionView, renderConfirmedTransaction } from "../confirmed-transaction.js";

const MAX_SIGNATURE_STATUSES = 256;
const MAX_SIGNATURES_FOR_ADDRESS = 1000;

/** Every slot is final at once, so every recorded transaction is finalized. */
const CONFIRMATION_STATUS = "finalized";

/** Like a validator, history methods refuse `processed`: it has no meaning for stored history. */
export function checkHistoryCommitment(config: Config): void {
  if (config.commitment === "processed") {
    throw invalidParams("Method does not support commitment below `confirmed`");
  }
}

export const historyMethods: Record<string, LedgerRpcMethod> = {
  getSignatureStatuses: (params, { ledger }) => {
    const args = positional(params, "getSignatureStatuses", 2);
    const signatures = requiredParam(args, 0, "signatures");
    if (!Array.isArray(signatures) || signatures.length > MAX_SIGNATURE_STATUSES) {
      throw invalidParams(`signatures must be an array of at most ${MAX_SIGNATURE_STATUSES} signatures`);
    }
    const config = configParam(args, 1, "getSignatureStatuses");
    // Every signature is always searchable here, so searchTransactionHistory changes nothing.
    optionalBoolean(config, "searchTransactionHistory");
    const slot = ledger.currentSlot();
    const value = signatures.map((value, i) => {
      const entry = ledger.history.get(signatureParam(value, `signature ${i + 1}`));
      if (entry === undefined) return null;
      return {
        slot: entry.slot,
        confirmations: null,
        err: entry.err,
        status: entry.err === null ? { Ok: null } : { Err: entry.err },
        confirmationStatus: CONFIRMATION_STATUS,
      };
    });
    return withContext(slot, value);
  },

  getTransaction: (params, { ledger }) => {
    const args = positional(params, "getTransaction", 2);
    const signature = signatureParam(requiredParam(args, 0, "signature"), "signature");
    const config =
      typeof args[1] === "string" ? { encoding: args[1] } : configParam(args, 1, "getTransaction");
    const view = readTransactionView(config, ledger.programId);
    checkHistoryCommitment(config);
    checkCommonConfig(config, ledger.currentSlot());
    const found = ledger.transaction(signature);
    if (found === undefined) return null;
    return {
      slot: found.entry.slot,
      blockTime: found.entry.blockTime,
      ...renderConfirmedTransaction(found.record, view),
    };
  },

  getSignaturesForAddress: (params, { ledger }) => {
    const args = positional(params, "getSignaturesForAddress", 2);
    const address = addressParam(requiredParam(args, 0, "address"), "address");
    const config = configParam(args, 1, "getSignaturesForAddress");
    const limit =
      optionalInteger(config, "limit", 1, MAX_SIGNATURES_FOR_ADDRESS) ?? MAX_SIGNATURES_FOR_ADDRESS;
    const before =
      config.before === undefined || config.before === null
        ? undefined
        : signatureParam(config.before, "before");
    const until =
      config.until === undefined || config.until === null ? undefined : signatureParam(config.until, "until");
    checkHistoryCommitment(config);
    checkCommonConfig(config, ledger.currentSlot());
    return ledger.signaturesForAddress(address, { limit, before, until }).map((entry) => ({
      signature: entry.signature,
      slot: entry.slot,
      err: entry.err,
      memo: entry.memo,
      blockTime: entry.blockTime,
      confirmationStatus: CONFIRMATION_STATUS,
    }));
  },
};
