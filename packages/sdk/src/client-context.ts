import type { Rpc, SolanaRpcApi } from "@solana/kit";

import {
  resolveClientSettings,
  type AttestationClientConfig,
  type ResolvedClientSettings,
} from "./client-config.js";
import { prepareKeypair, type PreparedKeypair } from "./keypair.js";
import { createTimedSolanaRpc } from "./rpc-transport.js";
import type { SendSettings } from "./send-transaction.js";

/** What every operation of the client needs: the RPC, the checked settings, the agent's key. */
export type ClientContext = Readonly<{
  rpc: Rpc<SolanaRpcApi>;
  settings: ResolvedClientSettings;
  sendSettings: SendSettings;
  agent: PreparedKeypair;
}>;

/** Checks the whole configuration, the agent's key included, without touching the network. */
export function createClientContext(config: AttestationClientConfig): ClientContext {
  const settings = resolveClientSettings(config);
  const agent = prepareKeypair(config.agentKeypair, "agentKeypair");
  const rpc = createTimedSolanaRpc(settings.rpcUrl, settings.requestTimeoutMs);
  return {
    rpc,
    settings,
    agent,
    sendSettings: {
      rpc,
      programId: settings.programId,
      commitment: settings.commitment,
      priorityFeeMicroLamports: settings.priorityFeeMicroLamports,
      computeUnitMargin: settings.computeUnitMargin,
      confirmationTimeoutMs: settings.confirmationTimeoutMs,
      maxSendAttempts: settings.maxSendAttempts,
      knownComputeUnits: new Map(),
    },
  };
}
