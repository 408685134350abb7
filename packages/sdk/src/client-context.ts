import type { Rpc, SolanaRpcApi } from "@solana/kit";

import type { ResolvedClientSettings } from "./client-config.js";
import type { PreparedKeypair } from "./keypair.js";
import type { SendSettings } from "./send-transaction.js";

/** What every operation of the client needs: the RPC, the checked settings, the agent's key. */
export type ClientContext = Readonly<{
  rpc: Rpc<SolanaRpcApi>;
  settings: ResolvedClientSettings;
  sendSettings: SendSettings;
  agent: PreparedKeypair;
}>;
