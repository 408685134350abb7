/**
 * The node and its cluster of one: getIdentity, getClusterNodes, getLeaderSchedule,
 * getVoteAccounts. The faucet's key, which produced genesis, stands as the node's identity and
 * leads every slot; nothing votes here (every slot is final when it starts), so there are no vote
 * accounts. The node serves JSON-RPC and subscriptions only: no gossip, TPU, TVU or repair
 * sockets, so those are null in getClusterNodes.
 */
import { SLOTS_PER_EPOCH } from "../../ledger/ledger-time.js";
import {
  addressParam,
  checkCommonConfig,
  configOrCommitment,
  configParam,
  integerParam,
  optionalBoolean,
  optionalInteger,
  positional,
} from "../params.js";
import { FEATURE_SET, SOLANA_CORE_VERSION, type LedgerRpcMethod } from "../rpc-context.js";

export const nodeMethods: Record<string, LedgerRpcMethod> = {
  getIdentity: (params, { ledger }) => {
    positional(params, "getIdentity", 0);
    return { identity: ledger.faucetAddress };
  },

  getClusterNodes: (params, { ledger, endpoints }) => {
    positional(params, "getClusterNodes", 0);
    return [
      {
        pubkey: ledger.faucetAddress,
        gossip: null,
        tvu: null,
        tpu: null,
        tpuQuic: null,
        tpuForwards: null,
        tpuForwardsQuic: null,
        tpuVote: null,
        serveRepair: null,
        rpc: endpoints.rpc,
        pubsub: endpoints.pubsub,
        version: SOLANA_CORE_VERSION,
        featureSet: FEATURE_SET,
        // Validators of a cluster share a shred version derived from its genesis; none is sent here.
        shredVersion: 0,
        clientId: null,
      },
    ];
  },

  getLeaderSchedule: (params, { ledger }) => {
    const args = positional(params, "getLeaderSchedule", 2);
    // The slot is optional: a config (or commitment) may take its place.
    const slotGiven = typeof args[0] === "number";
    const config =
      slotGiven || args[0] === undefined || args[0] === null
        ? configParam(args, 1, "getLeaderSchedule")
        : configOrCommitment(args, 0, "getLeaderSchedule");
    const identity =
      config.identity === undefined || config.identity === null
        ? undefined
        : addressParam(config.identity, "identity");
    const current = ledger.currentSlot();
    checkCommonConfig(config, current);
    const slot = slotGiven ? BigInt(integerParam(args[0], "slot", 0, Number.MAX_SAFE_INTEGER)) : current;
    // Like a validator, it knows the schedule of the current epoch and the next one only.
    const epoch = slot / SLOTS_PER_EPOCH;
    if (epoch > current / SLOTS_PER_EPOCH + 1n) return null;
    if (identity !== undefined && identity !== ledger.faucetAddress) return {};
    return { [ledger.faucetAddress]: Array.from({ length: Number(SLOTS_PER_EPOCH) }, (_, index) => index) };
  },

  getVoteAccounts: (params, { ledger }) => {
    const config = configParam(positional(params, "getVoteAccounts", 1), 0, "getVoteAccounts");
    if (config.votePubkey !== undefined && config.votePubkey !== null)
      addressParam(config.votePubkey, "votePubkey");
    optionalBoolean(config, "keepUnstakedDelinquents");
    optionalInteger(config, "delinquentSlotDistance", 0, Number.MAX_SAFE_INTEGER);
    checkCommonConfig(config, ledger.currentSlot());
    return { current: [], delinquent: [] };
  },
};
