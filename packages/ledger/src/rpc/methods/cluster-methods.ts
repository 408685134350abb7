/** Node and cluster information: slots, heights, epochs, versions, health, block times. */
import { SLOTS_PER_EPOCH } from "../../ledger/ledger-time.js";
import { RpcError, RpcErrorCode } from "../json-rpc.js";
import { checkCommonConfig, configOrCommitment, integerParam, positional, requiredParam } from "../params.js";
import { FEATURE_SET, SOLANA_CORE_VERSION, type LedgerRpcMethod } from "../rpc-context.js";

const slotMethod =
  (name: string): LedgerRpcMethod =>
  (params, { ledger }) => {
    const slot = ledger.currentSlot();
    checkCommonConfig(configOrCommitment(positional(params, name, 1), 0, name), slot);
    return slot;
  };

export const clusterMethods: Record<string, LedgerRpcMethod> = {
  getHealth: (params, { ledger }) => {
    positional(params, "getHealth", 0);
    const unhealthy = ledger.unhealthy;
    // Agave's answer for a node that cannot serve: -32005, so that a balancer takes it out.
    if (unhealthy !== undefined)
      throw new RpcError(RpcErrorCode.NODE_UNHEALTHY, `Node is unhealthy: ${unhealthy}`);
    return "ok";
  },

  getVersion: (params) => {
    positional(params, "getVersion", 0);
    return { "solana-core": SOLANA_CORE_VERSION, "feature-set": FEATURE_SET };
  },

  getGenesisHash: (params, { ledger }) => {
    positional(params, "getGenesisHash", 0);
    return ledger.genesis.genesisHash;
  },

  getSlot: slotMethod("getSlot"),
  // No slot is ever skipped, so the block height is the slot.
  getBlockHeight: slotMethod("getBlockHeight"),

  getEpochInfo: (params, { ledger }) => {
    const slot = ledger.currentSlot();
    checkCommonConfig(configOrCommitment(positional(params, "getEpochInfo", 1), 0, "getEpochInfo"), slot);
    return {
      absoluteSlot: slot,
      blockHeight: slot,
      epoch: slot / SLOTS_PER_EPOCH,
      slotIndex: slot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: BigInt(ledger.history.size),
    };
  },

  getEpochSchedule: (params) => {
    positional(params, "getEpochSchedule", 0);
    return {
      slotsPerEpoch: SLOTS_PER_EPOCH,
      leaderScheduleSlotOffset: SLOTS_PER_EPOCH,
      warmup: false,
      firstNormalEpoch: 0,
      firstNormalSlot: 0,
    };
  },

  getTransactionCount: (params, { ledger }) => {
    checkCommonConfig(
      configOrCommitment(positional(params, "getTransactionCount", 1), 0, "getTransactionCount"),
      ledger.currentSlot(),
    );
    return BigInt(ledger.history.size);
  },

  getFirstAvailableBlock: (params) => {
    positional(params, "getFirstAvailableBlock", 0);
    return 0n;
  },

  minimumLedgerSlot: (params) => {
    positional(params, "minimumLedgerSlot", 0);
    return 0n;
  },

  getBlockTime: (params, { ledger }) => {
    const args = positional(params, "getBlockTime", 1);
    const slot = BigInt(integerParam(requiredParam(args, 0, "slot"), "slot", 0, Number.MAX_SAFE_INTEGER));
    const time = ledger.blockTime(slot);
    if (time === undefined) {
      throw new RpcError(RpcErrorCode.BLOCK_NOT_AVAILABLE, `Block not available for slot ${slot}`);
    }
    return time;
  },
};
