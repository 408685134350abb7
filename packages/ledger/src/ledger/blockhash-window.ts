/**
 * Recent blockhashes with a validator's rules: every slot has its own blockhash, and a
 * transaction may use one for 150 slots after it. litesvm only knows one "latest" blockhash, so
 * the ledger turns litesvm's check off and checks against this window instead.
 *
 * A slot's blockhash is derived from the genesis hash and the slot number, so it is the same
 * after a restart: a transaction signed just before a restart stays valid after it.
 */
import { createHash } from "node:crypto";

import { toBase58, u64LittleEndian } from "../encoding.js";

/** How many slots a blockhash stays usable (MAX_PROCESSING_AGE). */
export const MAX_PROCESSING_AGE = 150n;

const DOMAIN = new TextEncoder().encode("abas-ledger:blockhash:v1");

export class BlockhashWindow {
  private readonly slotByHash = new Map<string, bigint>();
  private readonly hashBySlot = new Map<bigint, string>();
  private newest: bigint | undefined;

  constructor(private readonly genesisHash: Uint8Array) {}

  blockhashOf(slot: bigint): string {
    const hash = createHash("sha256")
      .update(DOMAIN)
      .update(this.genesisHash)
      .update(u64LittleEndian(slot))
      .digest();
    return toBase58(new Uint8Array(hash));
  }

  /** Makes `slot` the newest slot: adds the blockhashes up to it, forgets those too old. */
  advanceTo(slot: bigint): void {
    const oldestKept = slot > MAX_PROCESSING_AGE ? slot - MAX_PROCESSING_AGE : 0n;
    const firstNew = this.newest === undefined || this.newest < oldestKept ? oldestKept : this.newest + 1n;
    for (let s = firstNew; s <= slot; s += 1n) {
      const hash = this.blockhashOf(s);
      this.hashBySlot.set(s, hash);
      this.slotByHash.set(hash, s);
    }
    for (const [s, hash] of this.hashBySlot) {
      if (s >= oldestKept) break;
      this.hashBySlot.delete(s);
      this.slotByHash.delete(hash);
    }
    if (this.newest === undefined || slot > this.newest) this.newest = slot;
  }

  /** The slot whose blockhash this is, while it is still usable. */
  slotOf(blockhash: string): bigint | undefined {
    return this.slotByHash.get(blockhash);
  }

  isValid(blockhash: string): boolean {
    return this.slotByHash.has(blockhash);
  }
}
