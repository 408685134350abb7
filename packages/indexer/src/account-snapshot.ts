/**
 * The state of the accounts a group of transactions touched, read in ONE `getMultipleAccounts`
 * call so that every account in it is as of the same ledger slot. The groups of a chunk go in one
 * JSON-RPC batch, which the ledger answers in order, and chunks are read one after the other, so
 * each snapshot is at least as new as the one before: the appliers may then write "the newest
 * known state" without ever going back in time (see `state_slot`).
 */
import type { Address, Commitment } from "@solana/kit";

import { sendJsonRpcBatch, type JsonRpcCall } from "./json-rpc-batch.js";

/** The most addresses one `getMultipleAccounts` call takes. */
export const MAX_ACCOUNTS_PER_SNAPSHOT = 100;

export type AccountSnapshot = Readonly<{
  /** The ledger slot the accounts were read at. */
  slot: bigint;
  /** The data of an account the program owns, or undefined when it does not exist or is not the program's. */
  dataOf(account: Address): Uint8Array | undefined;
}>;

type AccountsJson = Readonly<{
  context: { slot: number };
  value: readonly ({ owner: string; data: readonly [string, string] } | null)[];
}>;

/** One snapshot per group of accounts, in one JSON-RPC batch; a group without accounts gets the slot only. */
export async function readAccountSnapshots(
  rpcUrl: string,
  programId: Address,
  groups: readonly (readonly Address[])[],
  commitment: Commitment,
): Promise<AccountSnapshot[]> {
  const unique = groups.map((accounts) => [...new Set(accounts)]);
  const calls = unique.map((accounts): JsonRpcCall => {
    if (accounts.length > MAX_ACCOUNTS_PER_SNAPSHOT) {
      throw new RangeError(
        `a snapshot holds at most ${MAX_ACCOUNTS_PER_SNAPSHOT} accounts, got ${accounts.length}`,
      );
    }
    return accounts.length === 0
      ? { method: "getSlot", params: [{ commitment }] }
      : { method: "getMultipleAccounts", params: [accounts, { encoding: "base64", commitment }] };
  });
  const results = await sendJsonRpcBatch(rpcUrl, calls);
  return results.map((result, i) => {
    if (typeof result === "number") return { slot: BigInt(result), dataOf: () => undefined };
    const { context, value } = result as AccountsJson;
    const data = new Map<Address, Uint8Array>();
    value.forEach((account, j) => {
      if (account === null || account.owner !== programId) return;
      data.set(unique[i]![j]!, new Uint8Array(Buffer.from(account.data[0], "base64")));
    });
    return { slot: BigInt(context.slot), dataOf: (account: Address) => data.get(account) };
  });
}
