/**
 * Ledger time. Slots advance with the wall clock, one per `slotMs`. A clock anchor pins slot
 * `slot` to wall time `unixMs`; every later slot follows from the newest anchor, so slot numbers
 * and block times are reproducible (after a restart, on replay) without recording every slot.
 */
export interface ClockAnchor {
  readonly slot: bigint;
  readonly unixMs: number;
  readonly slotMs: number;
}

/** The Clock sysvar a transaction executed with; recorded with it so that replay is exact. */
export interface BlockClock {
  readonly slot: bigint;
  readonly epoch: bigint;
  readonly epochStartTimestamp: bigint;
  /** Seconds; also the transaction's `blockTime`. */
  readonly unixTimestamp: bigint;
}

/** Mainnet's epoch length; the ledger's epoch schedule has no warm-up, so epoch = slot / this. */
export const SLOTS_PER_EPOCH = 432_000n;

/** The newest anchor at or before `slot` (anchors are kept in slot order). */
export function anchorFor(anchors: readonly ClockAnchor[], slot: bigint): ClockAnchor {
  let found = anchors[0];
  for (const anchor of anchors) {
    if (anchor.slot <= slot) found = anchor;
    else break;
  }
  if (found === undefined) throw new Error("the ledger has no clock anchor");
  return found;
}

/** Wall time (ms) at which `slot` started. */
export function slotStartMs(anchors: readonly ClockAnchor[], slot: bigint): number {
  const anchor = anchorFor(anchors, slot);
  return anchor.unixMs + Number(slot - anchor.slot) * anchor.slotMs;
}

/** The slot the wall clock is in, by the newest anchor; never before that anchor's slot. */
export function slotAtTime(anchors: readonly ClockAnchor[], unixMs: number): bigint {
  const anchor = anchors[anchors.length - 1];
  if (anchor === undefined) throw new Error("the ledger has no clock anchor");
  const elapsed = Math.max(0, Math.floor((unixMs - anchor.unixMs) / anchor.slotMs));
  return anchor.slot + BigInt(elapsed);
}

export function blockClockAt(anchors: readonly ClockAnchor[], slot: bigint): BlockClock {
  const epoch = slot / SLOTS_PER_EPOCH;
  const epochStart = epoch * SLOTS_PER_EPOCH;
  const seconds = (ms: number): bigint => BigInt(Math.floor(ms / 1000));
  const firstKnownSlot = anchors[0]?.slot ?? 0n;
  return {
    slot,
    epoch,
    epochStartTimestamp: seconds(
      slotStartMs(anchors, epochStart < firstKnownSlot ? firstKnownSlot : epochStart),
    ),
    unixTimestamp: seconds(slotStartMs(anchors, slot)),
  };
}
