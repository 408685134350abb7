/** Leadership: at most one indexer applies transactions to a database at a time. */

export interface LeaderLease {
  /** False once the lease is released or lost; checked before every database write. */
  readonly held: boolean;
  /** Resolves when the lease ends, released or lost. */
  readonly ended: Promise<void>;
  release(): Promise<void>;
}

export interface LeaderElection {
  /** The lease when no other indexer holds it, else undefined (try again later). */
  tryAcquire(): Promise<LeaderLease | undefined>;
}

/** The state shared by both lease kinds: held until ended, once. */
export class LeaseState {
  #held = true;
  #releasedByHolder = false;
  #endLease!: () => void;
  readonly ended = new Promise<void>((resolve) => (this.#endLease = resolve));

  get held(): boolean {
    return this.#held;
  }

  get releasedByHolder(): boolean {
    return this.#releasedByHolder;
  }

  end(releasedByHolder: boolean): void {
    if (!this.#held) return;
    this.#held = false;
    this.#releasedByHolder = releasedByHolder;
    this.#endLease();
  }

  /** Waits `ms`, or less when the lease ends meanwhile. */
  async pause(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }
}
