/** Leadership: at most one indexer applies transactions to a database at a time. */
import type { IndexerDatabase } from "../indexer-database.js";

export interface LeaderLease {
  /** The instance id holding the lease: recorded as `applied_by` of every transaction it applies. */
  readonly holder: string;
  /** False once the lease is released or lost. */
  readonly held: boolean;
  /** Resolves when the lease ends, released or lost. */
  readonly ended: Promise<void>;
  /**
   * Run first inside every database transaction the leader writes in: throws LeadershipLostError
   * (and ends the lease) unless the lease row still names this leader with its epoch, unexpired.
   * The check holds the row until the transaction ends, so no takeover commits in between.
   */
  fence(trx: IndexerDatabase): Promise<void>;
  release(): Promise<void>;
}

export interface LeaderElection {
  /**
   * The lease when no other indexer holds it, else undefined (try again later). With `takeOver`
   * (a reindex), the lease is taken from a running leader, whose next write the fence refuses.
   */
  tryAcquire(options?: { readonly takeOver?: boolean }): Promise<LeaderLease | undefined>;
}

/** A write refused by the fence: another indexer leads now (or this one's lease ran out). */
export class LeadershipLostError extends Error {
  override readonly name = "LeadershipLostError";
}

/** Runs `write` in one transaction that starts with the lease's fence. */
export async function writeAsLeader<T>(
  db: IndexerDatabase,
  lease: Pick<LeaderLease, "fence">,
  write: (trx: IndexerDatabase) => Promise<T>,
): Promise<T> {
  return await db.transaction().execute(async (trx) => {
    await lease.fence(trx);
    return await write(trx);
  });
}

/** The state of one lease: held until ended, once. */
export class LeaseState {
  #held = true;
  #endLease!: () => void;
  readonly ended = new Promise<void>((resolve) => (this.#endLease = resolve));

  get held(): boolean {
    return this.#held;
  }

  end(): void {
    if (!this.#held) return;
    this.#held = false;
    this.#endLease();
  }
}
