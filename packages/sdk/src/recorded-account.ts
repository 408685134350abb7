import type { Address } from "@solana/kit";

import type { ClientContext } from "./client-context.js";
import { fetchLedgerAccount } from "./ledger-accounts.js";
import { rpcRequestFailed } from "./rpc-request.js";

// Behind a load balancer the node that answers may be a moment behind the one that confirmed.
const READ_BACK_ATTEMPTS = 5;
const READ_BACK_DELAY_MS = 400;

/**
 * The data of an account that a confirmed transaction of the client just wrote: the receipt's
 * slot and timestamp are read from it, so they are the ledger's and not the client's.
 */
export async function fetchRecordedAccount(context: ClientContext, address: Address): Promise<Uint8Array> {
  for (let attempt = 1; attempt <= READ_BACK_ATTEMPTS; attempt++) {
    const account = await fetchLedgerAccount(context.rpc, address, context.settings.commitment);
    if (account !== null && account.owner === context.settings.programId) return account.data;
    await new Promise((resolve) => setTimeout(resolve, READ_BACK_DELAY_MS));
  }
  throw rpcRequestFailed(
    "getAccountInfo",
    new Error(`the node does not show account ${address}, which a confirmed transaction created`),
  );
}
