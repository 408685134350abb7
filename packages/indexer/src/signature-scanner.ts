/**
 * Lists the program's transactions newer than the checkpoint. `getSignaturesForAddress` answers
 * newest first, at most 1000 at a time: page back with `before` until a short page says the
 * checkpoint (`until`) or the beginning of history is reached, then return them oldest first, the
 * order in which they must be applied.
 */
import type { Address, Commitment, Rpc, Signature, SolanaRpcApi } from "@solana/kit";

import { rpcRequestOptions } from "./rpc-request-options.js";

/** The most signatures one `getSignaturesForAddress` call returns. */
export const SIGNATURES_PAGE_SIZE = 1000;

export type LedgerSignature = Readonly<{ signature: Signature; slot: bigint; failed: boolean }>;

export async function listSignaturesSince(
  rpc: Rpc<SolanaRpcApi>,
  programId: Address,
  until: string | undefined,
  commitment: Commitment,
): Promise<LedgerSignature[]> {
  const newestFirst: LedgerSignature[] = [];
  let before: Signature | undefined;
  for (;;) {
    const page = await rpc
      .getSignaturesForAddress(programId, {
        limit: SIGNATURES_PAGE_SIZE,
        commitment: commitment === "finalized" ? "finalized" : "confirmed",
        ...(until === undefined ? {} : { until: until as Signature }),
        ...(before === undefined ? {} : { before }),
      })
      .send(rpcRequestOptions());
    for (const entry of page)
      newestFirst.push({ signature: entry.signature, slot: entry.slot, failed: entry.err !== null });
    if (page.length < SIGNATURES_PAGE_SIZE) break;
    before = page[page.length - 1]!.signature;
  }
  return newestFirst.reverse();
}
