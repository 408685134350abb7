/**
 * The state of the accounts a group of transactions touched, read in ONE `getMultipleAccounts`
 * call (or, for more accounts than one call takes, calls answered at one slot) so that every
 * account in it is as of the same ledger slot. The groups of a chunk go in one
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

/**
 * The calls of a group of more accounts than one call takes were answered at different slots, so
 * they are not one snapshot: the poll fails and is retried, as after any other RPC failure.
 */
export class SnapshotSlotsDifferError extends Error {
  override readonly name = "SnapshotSlotsDifferError";
}

/**
 * One snapshot per group of accounts, in one JSON-RPC batch; a group without accounts gets the slot
 * only. A group of more than MAX_ACCOUNTS_PER_SNAPSHOT accounts (one transaction can name that
 * many through address lookup tables) is read in several calls of the batch, which must all answer
 * at the same slot.
 */
export async function readAccountSnapshots(
  rpcUrl: string,
  programId: Address,
  groups: readonly (readonly Address[])[],
  commitment: Commitment,
): Promise<AccountSnapshot[]> {
  const parts: { group: number; accounts: readonly Address[]; call: JsonRpcCall }[] = [];
  groups.forEach((accounts, group) => {
    const unique = [...new Set(accounts)];
    if (unique.length === 0)
      parts.push({ group, accounts: [], call: { method: "getSlot", params: [{ commitment }] } });
    for (let start = 0; start < unique.length; start += MAX_ACCOUNTS_PER_SNAPSHOT) {
      const slice = unique.slice(start, start + MAX_ACCOUNTS_PER_SNAPSHOT);
      parts.push({
        group,
        accounts: slice,
        call: { method: "getMultipleAccounts", params: [slice, { encoding: "base64", commitment }] },
      });
    }
  });
  const results = await sendJsonRpcBatch(
    rpcUrl,
    parts.map((part) => part.call),
  );
  const read = groups.map(() => ({
    slot: undefined as bigint | undefined,
    data: new Map<Address, Uint8Array>(),
  }));
  results.forEach((result, i) => {
    const { group, accounts } = parts[i]!;
    const snapshot = read[group]!;
    const slot = BigInt(typeof result === "number" ? result : (result as AccountsJson).context.slot);
    if (snapshot.slot !== undefined && snapshot.slot !== slot) {
      throw new SnapshotSlotsDifferError(
        `the accounts of one snapshot, read in several calls of one batch, were read at slots ${snapshot.slot} and ${slot}`,
      );
    }
    snapshot.slot = slot;
    if (typeof result === "number") return;
    (result as AccountsJson).value.forEach((account, j) => {
      if (account === null || account.owner !== programId) return;
      snapshot.data.set(accounts[j]!, new Uint8Array(Buffer.from(account.data[0], "base64")));
    });
  });
  return read.map(({ slot, data }) => ({ slot: slot!, dataOf: (account: Address) => data.get(account) }));
}
