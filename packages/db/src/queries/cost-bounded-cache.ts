/**
 * Results of a costly read, reused in proportion to their cost: a result that took at least
 * `minCostMs` to compute is reused for `reuseFactor` times as long as it took, so that recomputing
 * one key takes at most 1/`reuseFactor` of the process's time; a cheaper one is computed again on
 * every call. Calls for a key whose computation is under way wait for it instead of starting
 * another. At most `maxEntries` keys are kept, the least recently computed going first.
 */
export interface CostBoundedCacheOptions {
  readonly now?: () => number;
  /** Default 20 ms. */
  readonly minCostMs?: number;
  /** Default 100. */
  readonly reuseFactor?: number;
  /** Default 1,000. */
  readonly maxEntries?: number;
}

type Entry<T> =
  | { readonly pending: Promise<T> }
  | { readonly value: T; readonly computedAt: number; readonly reuseMs: number };

export class CostBoundedCache<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #now: () => number;
  readonly #minCostMs: number;
  readonly #reuseFactor: number;
  readonly #maxEntries: number;

  constructor(options: CostBoundedCacheOptions = {}) {
    this.#now = options.now ?? (() => performance.now());
    this.#minCostMs = options.minCostMs ?? 20;
    this.#reuseFactor = options.reuseFactor ?? 100;
    this.#maxEntries = options.maxEntries ?? 1_000;
  }

  async get(key: string, compute: () => Promise<T>): Promise<T> {
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      if ("pending" in entry) return await entry.pending;
      if (this.#now() - entry.computedAt < entry.reuseMs) return entry.value;
    }
    const started = this.#now();
    const pending = compute().then(
      (value) => {
        const computedAt = this.#now();
        const cost = computedAt - started;
        if (cost >= this.#minCostMs) this.#set(key, { value, computedAt, reuseMs: cost * this.#reuseFactor });
        else this.#entries.delete(key);
        return value;
      },
      (error: unknown) => {
        this.#entries.delete(key);
        throw error;
      },
    );
    this.#set(key, { pending });
    return await pending;
  }

  #set(key: string, entry: Entry<T>): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
