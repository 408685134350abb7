import type { Address, Signature } from "@solana/kit";

import { historyCommitment } from "../history-commitment.js";
import { sendRpcRequest } from "../rpc-request.js";
import type { LookupContext } from "./lookup-context.js";

/**
 * The transaction that created an account the program writes once: the oldest successful one
 * that names it in the slot the account records.
 */
export async function findRecordingTransaction(
  context: LookupContext,
  address: Address,
  slot: number,
): Promise<Signature | undefined> {
  const entries = await sendRpcRequest(
    "getSignaturesForAddress",
    context.rpc.getSignaturesForAddress(address, {
      commitment: historyCommitment(context.commitment),
      limit: 1000,
    }),
    context.abortSignal,
  );
  return entries.filter((entry) => entry.err === null && Number(entry.slot) === slot).at(-1)?.signature;
}
