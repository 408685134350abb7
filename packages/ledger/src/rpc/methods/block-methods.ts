/**
 * Blocks: getBlock, getBlocks, getBlocksWithLimit. One block per slot, none skipped; a block holds
 * the transactions that landed in its slot, and is served once its slot has ended (the next one
 * started), when no transaction can land in it any more: a block read once never changes, as a
 * validator serves only rooted blocks. The current slot's block is not available yet (-32004).
 */
import { RpcError, RpcErrorCode, invalidParams } from "../json-rpc.js";
import {
  checkCommonConfig,
  configOrCommitment,
  configParam,
  integerParam,
  optionalBoolean,
  optionalEnum,
  positional,
  requiredParam,
} from "../params.js";
import { readTransactionView, renderConfirmedTransaction } from "../confirmed-transaction.js";
import type { LedgerRpcMethod } from "../rpc-context.js";
import { checkHistoryCommitment } from "./history-methods.js";

/** The widest slot range getBlocks and getBlocksWithLimit answer, as on a validator. */
const MAX_BLOCK_RANGE = 500_000;

const slotParam = (value: unknown, name: string): bigint =>
  BigInt(integerParam(value, name, 0, Number.MAX_SAFE_INTEGER));

/** The newest slot whose block is complete: the one before the current slot (-1 in slot 0). */
const lastEndedSlot = (current: bigint): bigint => current - 1n;

function slotsFrom(start: bigint, endInclusive: bigint): bigint[] {
  const slots: bigint[] = [];
  for (let slot = start; slot <= endInclusive; slot += 1n) slots.push(slot);
  return slots;
}

export const blockMethods: Record<string, LedgerRpcMethod> = {
  getBlock: (params, { ledger }) => {
    const args = positional(params, "getBlock", 2);
    const slot = slotParam(requiredParam(args, 0, "slot"), "slot");
    const config = typeof args[1] === "string" ? { encoding: args[1] } : configParam(args, 1, "getBlock");
    const details =
      optionalEnum(config, "transactionDetails", ["full", "accounts", "signatures", "none"] as const) ??
      "full";
    const rewards = optionalBoolean(config, "rewards") ?? true;
    const view = readTransactionView(config, ledger.programId, {
      details: details === "accounts" ? "accounts" : "full",
      showRewards: rewards,
    });
    checkHistoryCommitment(config);
    const current = ledger.currentSlot();
    checkCommonConfig(config, current);
    if (slot > lastEndedSlot(current)) {
      throw new RpcError(RpcErrorCode.BLOCK_NOT_AVAILABLE, `Block not available for slot ${slot}`);
    }
    const entries = ledger.history.entriesInSlot(slot);
    const parentSlot = slot === 0n ? 0n : slot - 1n;
    return {
      blockhash: ledger.blockhashOf(slot),
      previousBlockhash: ledger.blockhashOf(parentSlot),
      parentSlot,
      blockHeight: slot,
      blockTime: ledger.blockTime(slot) ?? null,
      ...(details === "full" || details === "accounts"
        ? {
            transactions: entries.map((entry) => {
              const found = ledger.transaction(entry.signature)!;
              return renderConfirmedTransaction(found.record, view);
            }),
          }
        : {}),
      ...(details === "signatures" ? { signatures: entries.map((entry) => entry.signature) } : {}),
      ...(rewards ? { rewards: [] } : {}),
    };
  },

  getBlocks: (params, { ledger }) => {
    const args = positional(params, "getBlocks", 3);
    const start = slotParam(requiredParam(args, 0, "start slot"), "start slot");
    // The end slot is optional (absent, null, or a config or commitment in its place).
    const endGiven =
      args[1] !== undefined && args[1] !== null && typeof args[1] !== "object" && typeof args[1] !== "string";
    const end = endGiven ? slotParam(args[1], "end slot") : undefined;
    const configIndex = args[1] === undefined || args[1] === null || endGiven ? 2 : 1;
    const config = configOrCommitment(args, configIndex, "getBlocks");
    checkHistoryCommitment(config);
    const current = ledger.currentSlot();
    checkCommonConfig(config, current);
    const ended = lastEndedSlot(current);
    const last = end === undefined || end > ended ? ended : end;
    if (last >= start && last - start > BigInt(MAX_BLOCK_RANGE)) {
      throw invalidParams(`Slot range too large; max ${MAX_BLOCK_RANGE}`);
    }
    return slotsFrom(start, last);
  },

  getBlocksWithLimit: (params, { ledger }) => {
    const args = positional(params, "getBlocksWithLimit", 3);
    const start = slotParam(requiredParam(args, 0, "start slot"), "start slot");
    const limit = integerParam(requiredParam(args, 1, "limit"), "limit", 0, MAX_BLOCK_RANGE);
    const config = configOrCommitment(args, 2, "getBlocksWithLimit");
    checkHistoryCommitment(config);
    const current = ledger.currentSlot();
    checkCommonConfig(config, current);
    const last = start + BigInt(limit) - 1n;
    const ended = lastEndedSlot(current);
    return slotsFrom(start, last > ended ? ended : last);
  },
};
