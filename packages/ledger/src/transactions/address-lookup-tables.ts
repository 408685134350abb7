/**
 * Resolves the addresses a v0 transaction loads from address lookup tables, for its history
 * (balances, getSignaturesForAddress, `meta.loadedAddresses`). The SVM resolves them itself when
 * it executes; this reads the same table accounts.
 */
import type { Address } from "@solana/kit";

import { toBase58 } from "../encoding.js";
import type { WireTransaction } from "./wire-transaction.js";

export const ADDRESS_LOOKUP_TABLE_PROGRAM = "AddressLookupTab1e1111111111111111111111111" as Address;
/** LookupTableMeta is serialized into the first 56 bytes, whatever it holds; addresses follow. */
export const LOOKUP_TABLE_META_SIZE = 56;

export interface LoadedAddresses {
  readonly writable: readonly Address[];
  readonly readonly: readonly Address[];
}

export const NO_LOADED_ADDRESSES: LoadedAddresses = { writable: [], readonly: [] };

export type ReadAccount = (address: Address) => { owner: Address; data: Uint8Array } | undefined;

/** Unresolvable lookups are left out: such a transaction fails to load and is never recorded. */
export function resolveLoadedAddresses(
  transaction: WireTransaction,
  readAccount: ReadAccount,
): LoadedAddresses {
  if (transaction.addressTableLookups.length === 0) return NO_LOADED_ADDRESSES;
  const writable: Address[] = [];
  const readonly: Address[] = [];
  for (const lookup of transaction.addressTableLookups) {
    const table = readAccount(lookup.accountKey);
    if (table === undefined || table.owner !== ADDRESS_LOOKUP_TABLE_PROGRAM) continue;
    const at = (index: number): Address | undefined => {
      const start = LOOKUP_TABLE_META_SIZE + index * 32;
      return start + 32 <= table.data.length
        ? (toBase58(table.data.subarray(start, start + 32)) as Address)
        : undefined;
    };
    for (const index of lookup.writableIndexes) {
      const resolved = at(index);
      if (resolved !== undefined) writable.push(resolved);
    }
    for (const index of lookup.readonlyIndexes) {
      const resolved = at(index);
      if (resolved !== undefined) readonly.push(resolved);
    }
  }
  return { writable, readonly };
}
