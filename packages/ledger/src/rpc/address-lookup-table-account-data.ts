/**
 * `jsonParsed` data of address lookup tables, in a validator's shape: `{ program:
 * "address-lookup-table", parsed: { type: "lookupTable", info: { deactivationSlot,
 * lastExtendedSlot, lastExtendedSlotStartIndex, authority?, addresses } }, space }` (the slots as
 * strings, `authority` left out once the table is frozen), or `{ type: "uninitialized" }`.
 */
import { toBase58 } from "../encoding.js";
import { LOOKUP_TABLE_META_SIZE } from "../transactions/address-lookup-tables.js";
import type { ParsedAccountData } from "./account-encoding.js";
import { parsedOrUndefined } from "./bincode-reader.js";

export function parseAddressLookupTableAccountData(data: Uint8Array): ParsedAccountData | undefined {
  return parsedOrUndefined("address-lookup-table", data, (read) => {
    const state = read.u32();
    if (state === 0) return { type: "uninitialized" };
    if (state !== 1) throw new RangeError("not a lookup table state");
    const deactivationSlot = read.u64().toString();
    const lastExtendedSlot = read.u64().toString();
    const lastExtendedSlotStartIndex = read.u8();
    const authority = read.optionalKey();
    const addresses = data.subarray(LOOKUP_TABLE_META_SIZE);
    if (data.length < LOOKUP_TABLE_META_SIZE || addresses.length % 32 !== 0)
      throw new RangeError("the addresses are not whole keys");
    const keys = Array.from({ length: addresses.length / 32 }, (_, i) =>
      toBase58(addresses.subarray(i * 32, (i + 1) * 32)),
    );
    return {
      type: "lookupTable",
      info: {
        deactivationSlot,
        lastExtendedSlot,
        lastExtendedSlotStartIndex,
        ...(authority === null ? {} : { authority }),
        addresses: keys,
      },
    };
  });
}
