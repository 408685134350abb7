/** Blockhashes and fees: getLatestBlockhash, isBlockhashValid, getFeeForMessage, priority fees. */
import { fromBase64 } from "../../encoding.js";
import { calculateFee } from "../../transactions/fees.js";
import { MalformedTransactionError, parseWireMessage } from "../../transactions/wire-transaction.js";
import { invalidParams } from "../json-rpc.js";
import {
  addressParam,
  blockhashParam,
  checkCommonConfig,
  configOrCommitment,
  configParam,
  positional,
  requiredParam,
  stringParam,
} from "../params.js";
import { withContext, type LedgerRpcMethod } from "../rpc-context.js";

/** How many recent slots getRecentPrioritizationFees covers, as on a validator. */
const PRIORITIZATION_FEE_SLOTS = 150n;
const MAX_PRIORITIZATION_FEE_ACCOUNTS = 128;

export const blockhashMethods: Record<string, LedgerRpcMethod> = {
  getLatestBlockhash: (params, { ledger }) => {
    const latest = ledger.latestBlockhash();
    checkCommonConfig(
      configOrCommitment(positional(params, "getLatestBlockhash", 1), 0, "getLatestBlockhash"),
      latest.slot,
    );
    return withContext(latest.slot, {
      blockhash: latest.blockhash,
      lastValidBlockHeight: latest.lastValidBlockHeight,
    });
  },

  isBlockhashValid: (params, { ledger }) => {
    const args = positional(params, "isBlockhashValid", 2);
    const blockhash = blockhashParam(requiredParam(args, 0, "blockhash"), "blockhash");
    const slot = ledger.currentSlot();
    checkCommonConfig(configParam(args, 1, "isBlockhashValid"), slot);
    return withContext(slot, ledger.isBlockhashValid(blockhash));
  },

  getFeeForMessage: (params, { ledger }) => {
    const args = positional(params, "getFeeForMessage", 2);
    const text = stringParam(requiredParam(args, 0, "message"), "message");
    const slot = ledger.currentSlot();
    checkCommonConfig(configParam(args, 1, "getFeeForMessage"), slot);
    let message;
    try {
      message = parseWireMessage(fromBase64(text));
    } catch (error) {
      const why = error instanceof MalformedTransactionError ? error.message : "not valid base64";
      throw invalidParams(`message is not a base64-encoded transaction message: ${why}`);
    }
    // A validator prices only messages it could still execute.
    const value = ledger.isBlockhashValid(message.recentBlockhash) ? calculateFee(message) : null;
    return withContext(slot, value);
  },

  getRecentPrioritizationFees: (params, { ledger }) => {
    const args = positional(params, "getRecentPrioritizationFees", 1);
    const accounts = args[0] ?? [];
    if (!Array.isArray(accounts) || accounts.length > MAX_PRIORITIZATION_FEE_ACCOUNTS) {
      throw invalidParams(
        `the accounts must be an array of at most ${MAX_PRIORITIZATION_FEE_ACCOUNTS} addresses`,
      );
    }
    const filter = new Set(accounts.map((value, i) => addressParam(value, `account ${i + 1}`)));
    const slot = ledger.currentSlot();
    const since = slot > PRIORITIZATION_FEE_SLOTS ? slot - PRIORITIZATION_FEE_SLOTS : 0n;
    // The lowest price that landed in each slot, among transactions naming the accounts if given.
    const lowest = new Map<bigint, bigint>();
    for (const entry of ledger.history.entriesSinceSlot(since)) {
      if (filter.size > 0 && !entry.accountKeys.some((key) => filter.has(key))) continue;
      const known = lowest.get(entry.slot);
      if (known === undefined || entry.computeUnitPrice < known)
        lowest.set(entry.slot, entry.computeUnitPrice);
    }
    if (lowest.size === 0) return [{ slot, prioritizationFee: 0n }];
    return [...lowest].map(([feeSlot, prioritizationFee]) => ({ slot: feeSlot, prioritizationFee }));
  },
};
