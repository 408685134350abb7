/**
 * Results of a costly read, each reused for as long as `reuseMs(result)` says (0: computed again on
 * every call). Calls for a key whose computation is under way wait for it instead of starting
 * another. At most `maxEntries` keys are kept, the least recently computed going first.
 */
export interface ReuseCacheOptions<T> {
  readonly reuseMs: (value: T) => number;
  readonly now?: () => number;
  /** Default 1,000. */
  readonly maxEntries?: number;
}

type Entry<T> = { readonly pending: Promise<T> } | { readonly value: T; readonly until: number };

export class ReuseCache<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #reuseMs: (value: T) => number;
  readonly #now: () => number;
  readonly #maxEntries: number;

  constructor(options: ReuseCacheOptions<T>) {
    this.#reuseMs = options.reuseMs;
    // The monotonic clock: a step of the wall clock does not make an entry live on.
    this.#now = options.now ?? (() => performance.now());
    this.#maxEntries = options.maxEntries ?? 1_000;
  }

  async get(key: string, compute: () => Promise<T>): Promise<T> {
    const entry = this.#entries.get(key);
    if (entry !== undefined) {
      if ("pending" in entry) return await entry.pending;
      if (this.#now() < entry.until) return entry.value;
    }
    const pending = compute().then(
      (value) => {
        const reuseMs = this.#reuseMs(value);
        if (reuseMs > 0) this.#set(key, { value, until: this.#now() + reuseMs });
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
