/** What every RPC method receives, and the `{ context, value }` envelope of versioned results. */
import type { Ledger } from "../ledger/ledger.js";
import type { Logger } from "../logger.js";
import type { RpcMethod } from "./json-rpc.js";
import { checkCommonConfig, type Config } from "./params.js";

/** Where the node serves, as getClusterNodes reports it ("host:port"); known once it listens. */
export interface NodeEndpoints {
  rpc: string | null;
  pubsub: string | null;
}

export interface RpcContext {
  readonly ledger: Ledger;
  readonly logger: Logger;
  readonly endpoints: NodeEndpoints;
}

export type LedgerRpcMethod = RpcMethod<RpcContext>;

/** The validator version whose RPC API this ledger speaks. */
export const SOLANA_CORE_VERSION = "3.0.0";
/** An identifier of the active feature set; fixed, since the ledger's features never change. */
export const FEATURE_SET = 3_294_202_862;

export interface WithContext<T> {
  readonly context: { readonly slot: bigint; readonly apiVersion: string };
  readonly value: T;
}

export function withContext<T>(slot: bigint, value: T): WithContext<T> {
  return { context: { slot, apiVersion: SOLANA_CORE_VERSION }, value };
}

/**
 * The slot a read of accounts answers at: taken once the batch being synced is on disk, so a read
 * never shows state that is not, and checked against the request's commitment and minContextSlot.
 */
export async function settledSlot(ledger: Ledger, config: Config): Promise<bigint> {
  await ledger.settled();
  const slot = ledger.currentSlot();
  checkCommonConfig(config, slot);
  return slot;
}
