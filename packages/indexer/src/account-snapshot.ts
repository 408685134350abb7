/**
 * The state of the accounts a group of transactions touched, read in ONE `getMultipleAccounts`
 * call so that every account in it is as of the same ledger slot. Groups are read one after the
 * other, so each snapshot is at least as new as the one before: the appliers may then write
 * "the newest known state" without ever going back in time (see `state_slot`).
 */
import { getBase64Encoder, type Address, type Commitment, type Rpc, type SolanaRpcApi } from "@solana/kit";

import { rpcRequestOptions } from "./rpc-request-options.js";

/** The most addresses one `getMultipleAccounts` call takes. */
export const MAX_ACCOUNTS_PER_SNAPSHOT = 100;

export type AccountSnapshot = Readonly<{
  /** The ledger slot the accounts were read at. */
  slot: bigint;
  /** The data of an account the program owns, or undefined when it does not exist or is not the program's. */
  dataOf(account: Address): Uint8Array | undefined;
}>;

export async function readAccountSnapshot(
  rpc: Rpc<SolanaRpcApi>,
  programId: Address,
  accounts: readonly Address[],
  commitment: Commitment,
): Promise<AccountSnapshot> {
  const unique = [...new Set(accounts)];
  if (unique.length > MAX_ACCOUNTS_PER_SNAPSHOT) {
    throw new RangeError(
      `a snapshot holds at most ${MAX_ACCOUNTS_PER_SNAPSHOT} accounts, got ${unique.length}`,
    );
  }
  const { context, value } =
    unique.length === 0
      ? { context: { slot: await rpc.getSlot({ commitment }).send(rpcRequestOptions()) }, value: [] }
      : await rpc.getMultipleAccounts(unique, { encoding: "base64", commitment }).send(rpcRequestOptions());
  const base64 = getBase64Encoder();
  const data = new Map<Address, Uint8Array>();
  value.forEach((account, i) => {
    if (account === null || account.owner !== programId) return;
    data.set(unique[i]!, Uint8Array.from(base64.encode(account.data[0])));
  });
  return { slot: context.slot, dataOf: (account) => data.get(account) };
}
