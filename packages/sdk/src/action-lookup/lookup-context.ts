import type { Address, Commitment, Rpc, SolanaRpcApi } from "@solana/kit";

import type { AttestationIndex } from "./attestation-index.js";

/** What every step of a lookup reads the ledger (and the index) with. */
export type LookupContext = Readonly<{
  rpc: Rpc<SolanaRpcApi>;
  rpcUrl: string;
  programId: Address;
  commitment: Commitment;
  index: AttestationIndex | undefined;
  /** At most this many index entries are read per search. */
  maxIndexEntries: number;
  abortSignal: AbortSignal | undefined;
}>;
