/**
 * The SlotHashes sysvar the ledger gives the SVM with each slot's Clock: that slot and the ones
 * before it, newest first, 512 in all, each with its blockhash. A validator's bank at slot S lists
 * S-1 and older, with their bank hashes; here the current slot is listed too, because a client
 * reads the slot it names (the `recentSlot` of createLookupTable) from this same ledger, where that
 * slot is the current one rather than a parent. Each slot's entry is a function of the slot alone,
 * so a replay sees what the first execution saw.
 */
import type { SlotHash } from "litesvm";

/** As many entries as the sysvar holds on a validator. */
const MAX_ENTRIES = 512n;

export class SlotHashesWindow {
  private readonly hashes = new Map<bigint, string>();

  constructor(private readonly blockhashOf: (slot: bigint) => string) {}

  /** The sysvar's entries at `slot`, newest first (each slot's hash computed once while in the window). */
  entriesAt(slot: bigint): SlotHash[] {
    const oldest = slot >= MAX_ENTRIES - 1n ? slot - (MAX_ENTRIES - 1n) : 0n;
    for (const cached of this.hashes.keys()) {
      if (cached < oldest || cached > slot) this.hashes.delete(cached);
    }
    const entries: SlotHash[] = [];
    for (let entry = slot; entry >= oldest; entry -= 1n) {
      let hash = this.hashes.get(entry);
      if (hash === undefined) {
        hash = this.blockhashOf(entry);
        this.hashes.set(entry, hash);
      }
      entries.push({ slot: entry, hash });
    }
    return entries;
  }
}
