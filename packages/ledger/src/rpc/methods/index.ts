/** Every HTTP JSON-RPC method, by name. */
import type { RpcMethods } from "../json-rpc.js";
import type { LedgerRpcMethod, RpcContext } from "../rpc-context.js";
import { accountMethods } from "./account-methods.js";
import { blockMethods } from "./block-methods.js";
import { blockhashMethods } from "./blockhash-methods.js";
import { clusterMethods } from "./cluster-methods.js";
import { historyMethods } from "./history-methods.js";
import { nodeMethods } from "./node-methods.js";
import { tokenMethods } from "./token-methods.js";
import { transactionMethods } from "./transaction-methods.js";

export function createRpcMethods(): RpcMethods<RpcContext> {
  const groups: Record<string, LedgerRpcMethod>[] = [
    clusterMethods,
    nodeMethods,
    blockhashMethods,
    transactionMethods,
    historyMethods,
    blockMethods,
    accountMethods,
    tokenMethods,
  ];
  return new Map(groups.flatMap((group) => Object.entries(group)));
}
