/**
 * The ledger's slot clock: one slot per `slotMs` of wall time, advanced whenever someone asks
 * and on a timer, keeping the recent-blockhash window and the SVM's Clock sysvar in step and
 * announcing every new slot.
 */
import { BlockhashWindow } from "./blockhash-window.js";
import { blockClockAt, slotAtTime, slotStartMs, type BlockClock, type ClockAnchor } from "./ledger-time.js";
import { Signal } from "./signal.js";

export interface SlotInfo {
  readonly slot: bigint;
  readonly parent: bigint;
  /** Every slot is final as soon as it starts: a single node with nothing to vote on. */
  readonly root: bigint;
}

/** A slot jump larger than this (the process was suspended) is announced as its last slots only. */
const MAX_SLOT_NOTIFICATIONS_PER_ADVANCE = 1000n;

export class SlotClock {
  readonly slotStarted: Signal<SlotInfo>;
  readonly blockhashes: BlockhashWindow;
  private slot: bigint;
  private ticker: NodeJS.Timeout | undefined;

  constructor(
    private readonly anchors: ClockAnchor[],
    genesisHash: Uint8Array,
    /** Called with the Clock of every new slot, to set the SVM's sysvar. */
    private readonly onNewClock: (clock: BlockClock) => void,
    onListenerError: (error: unknown) => void,
  ) {
    this.slotStarted = new Signal(onListenerError);
    this.blockhashes = new BlockhashWindow(genesisHash);
    this.slot = anchors[anchors.length - 1]?.slot ?? 0n;
    this.blockhashes.advanceTo(this.slot);
  }

  get allAnchors(): readonly ClockAnchor[] {
    return this.anchors;
  }

  /** Brings the slot up to the wall clock (announcing each new slot) and returns it. */
  current(now = Date.now()): bigint {
    const target = slotAtTime(this.anchors, now);
    if (target <= this.slot) return this.slot;
    const previous = this.slot;
    this.moveTo(target);
    const first =
      target - previous > MAX_SLOT_NOTIFICATIONS_PER_ADVANCE
        ? target - MAX_SLOT_NOTIFICATIONS_PER_ADVANCE
        : previous + 1n;
    for (let slot = first; slot <= target; slot += 1n) {
      this.slotStarted.emit({ slot, parent: slot - 1n, root: slot });
    }
    return target;
  }

  /** Replay: a recorded transaction shows the clock had reached `slot`. */
  reached(slot: bigint): void {
    if (slot > this.slot) this.moveTo(slot);
  }

  /**
   * The anchor of a new session: its first slot comes after every slot the previous run could
   * have shown (its clock kept running while this process was down) and after the last
   * transaction.
   */
  nextSessionAnchor(
    slotMs: number,
    latestTransactionSlot: bigint | undefined,
    now = Date.now(),
  ): ClockAnchor {
    let slot = slotAtTime(this.anchors, now);
    if (this.slot > slot) slot = this.slot;
    if (latestTransactionSlot !== undefined && latestTransactionSlot > slot) slot = latestTransactionSlot;
    return { slot: slot + 1n, unixMs: now, slotMs };
  }

  /** Takes an anchor read from the log (replay) or just written (new session). */
  addAnchor(anchor: ClockAnchor): void {
    this.anchors.push(anchor);
    this.reached(anchor.slot);
  }

  blockClock(slot: bigint): BlockClock {
    return blockClockAt(this.anchors, slot);
  }

  /** Unix seconds at which `slot` started by the clock (a slot with transactions has it recorded). */
  slotStartSeconds(slot: bigint): bigint {
    return BigInt(Math.floor(slotStartMs(this.anchors, slot) / 1000));
  }

  /** Advances on a timer too, so that the Clock and slot notifications move without requests. */
  startTicking(slotMs: number): void {
    // Unreferenced: the servers keep the process alive, the clock alone should not.
    this.ticker ??= setInterval(() => this.current(), Math.max(1, Math.floor(slotMs / 2))).unref();
  }

  stopTicking(): void {
    if (this.ticker !== undefined) clearInterval(this.ticker);
    this.ticker = undefined;
  }

  private moveTo(slot: bigint): void {
    this.slot = slot;
    this.blockhashes.advanceTo(slot);
    this.onNewClock(this.blockClock(slot));
  }
}
