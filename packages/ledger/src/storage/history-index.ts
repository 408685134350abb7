/**
 * The in-memory index of landed transactions: by signature, and by every address a transaction
 * names (for getSignaturesForAddress). The transaction bytes and metadata stay in the event log;
 * an entry points at its record. Snapshots save the index so startup need not rebuild it.
 */
import type { Address } from "@solana/kit";

import type { RpcTransactionError } from "../transactions/transaction-error.js";
import type { LogPosition } from "./event-log.js";

export interface HistoryEntry {
  readonly signature: string;
  readonly slot: bigint;
  /** Unix seconds. */
  readonly blockTime: bigint;
  readonly err: RpcTransactionError | null;
  readonly memo: string | null;
  readonly position: LogPosition;
  /** Static keys, then addresses loaded from lookup tables. */
  readonly accountKeys: readonly Address[];
  /** Micro-lamports per compute unit, for getRecentPrioritizationFees. */
  readonly computeUnitPrice: bigint;
}

export interface SignatureQuery {
  readonly before?: string;
  readonly until?: string;
  readonly limit: number;
}

/** The index as saved in a snapshot: addresses once in a table, entries as compact tuples. */
export interface SerializedHistory {
  readonly addresses: string[];
  readonly entries: [
    string,
    string,
    string,
    RpcTransactionError | null,
    string | null,
    number,
    number,
    number[],
    string,
  ][];
}

export class HistoryIndex {
  private readonly entries: HistoryEntry[] = [];
  private readonly bySignature = new Map<string, number>();
  private readonly byAddress = new Map<string, number[]>();

  get size(): number {
    return this.entries.length;
  }

  /** The slot of the newest entry, or undefined when there is none. */
  get latestSlot(): bigint | undefined {
    return this.entries[this.entries.length - 1]?.slot;
  }

  has(signature: string): boolean {
    return this.bySignature.has(signature);
  }

  get(signature: string): HistoryEntry | undefined {
    const ordinal = this.bySignature.get(signature);
    return ordinal === undefined ? undefined : this.entries[ordinal];
  }

  add(entry: HistoryEntry): void {
    if (this.bySignature.has(entry.signature))
      throw new Error(`transaction ${entry.signature} is already recorded`);
    const ordinal = this.entries.length;
    this.entries.push(entry);
    this.bySignature.set(entry.signature, ordinal);
    for (const address of new Set(entry.accountKeys)) {
      const list = this.byAddress.get(address);
      if (list === undefined) this.byAddress.set(address, [ordinal]);
      else list.push(ordinal);
    }
  }

  /**
   * Newest first. `before` starts just after that signature, `until` stops just before it; an
   * unknown `before` gives nothing and an unknown `until` is ignored, as on a validator.
   */
  signaturesForAddress(address: string, query: SignatureQuery): HistoryEntry[] {
    const ordinals = this.byAddress.get(address) ?? [];
    let startOrdinal = Number.POSITIVE_INFINITY;
    if (query.before !== undefined) {
      const before = this.bySignature.get(query.before);
      if (before === undefined) return [];
      startOrdinal = before;
    }
    const until = query.until === undefined ? -1 : (this.bySignature.get(query.until) ?? -1);
    const found: HistoryEntry[] = [];
    for (let i = ordinals.length - 1; i >= 0 && found.length < query.limit; i -= 1) {
      const ordinal = ordinals[i]!;
      if (ordinal >= startOrdinal) continue;
      if (ordinal <= until) break;
      found.push(this.entries[ordinal]!);
    }
    return found;
  }

  /** Entries of the last slots, newest last (for getRecentPrioritizationFees and getBlockTime). */
  entriesSinceSlot(slot: bigint): HistoryEntry[] {
    const out: HistoryEntry[] = [];
    for (let i = this.entries.length - 1; i >= 0; i -= 1) {
      const entry = this.entries[i]!;
      if (entry.slot < slot) break;
      out.push(entry);
    }
    return out.reverse();
  }

  /** The block time of the first transaction in `slot`, when a transaction landed in it. */
  blockTimeOfSlot(slot: bigint): bigint | undefined {
    const entry = this.entries[this.firstOrdinalFrom(slot)];
    return entry?.slot === slot ? entry.blockTime : undefined;
  }

  /** The transactions that landed in `slot`, in the order they executed. */
  entriesInSlot(slot: bigint): HistoryEntry[] {
    const out: HistoryEntry[] = [];
    for (let i = this.firstOrdinalFrom(slot); this.entries[i]?.slot === slot; i += 1)
      out.push(this.entries[i]!);
    return out;
  }

  /** The ordinal of the first entry in `slot` or later (entries are in slot order). */
  private firstOrdinalFrom(slot: bigint): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.entries[middle]!.slot < slot) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  serialize(): SerializedHistory {
    const addresses: string[] = [];
    const addressIds = new Map<string, number>();
    const idOf = (address: string): number => {
      let id = addressIds.get(address);
      if (id === undefined) {
        id = addresses.length;
        addresses.push(address);
        addressIds.set(address, id);
      }
      return id;
    };
    const entries = this.entries.map((entry): SerializedHistory["entries"][number] => [
      entry.signature,
      entry.slot.toString(),
      entry.blockTime.toString(),
      entry.err,
      entry.memo,
      entry.position.offset,
      entry.position.length,
      entry.accountKeys.map(idOf),
      entry.computeUnitPrice.toString(),
    ]);
    return { addresses, entries };
  }

  static deserialize(serialized: SerializedHistory): HistoryIndex {
    const index = new HistoryIndex();
    for (const [signature, slot, blockTime, err, memo, offset, length, keys, price] of serialized.entries) {
      index.add({
        signature,
        slot: BigInt(slot),
        blockTime: BigInt(blockTime),
        err,
        memo,
        position: { offset, length },
        accountKeys: keys.map((id) => serialized.addresses[id] as Address),
        computeUnitPrice: BigInt(price),
      });
    }
    return index;
  }
}
