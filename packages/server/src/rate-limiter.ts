/**
 * Token buckets in memory, one per key (an API key's id, a client address): each key may burst up
 * to `limit` requests and earns them back at `limit` per window. Each server replica counts on its
 * own (documented in docs/api.md). Full buckets are forgotten once there are many, so keys an
 * attacker invents (client addresses) cannot grow the map without bound.
 */
export interface RateLimitDecision {
  readonly allowed: boolean;
  readonly limit: number;
  /** Whole requests left right now. */
  readonly remaining: number;
  /** Seconds until the bucket is full again. */
  readonly resetSeconds: number;
  /** Seconds until the next request would be allowed (0 when allowed). */
  readonly retryAfterSeconds: number;
}

export interface RateLimiterOptions {
  readonly limit: number;
  readonly windowSeconds: number;
  readonly now?: () => number;
  /** Past this many buckets, full ones are dropped; default 10,000. */
  readonly maxBuckets?: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class TokenBucketRateLimiter {
  readonly limit: number;
  readonly windowSeconds: number;
  readonly #tokensPerMs: number;
  readonly #now: () => number;
  readonly #maxBuckets: number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: RateLimiterOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1)
      throw new RangeError("limit must be a positive integer");
    this.limit = options.limit;
    this.windowSeconds = options.windowSeconds;
    this.#tokensPerMs = options.limit / (options.windowSeconds * 1000);
    this.#now = options.now ?? Date.now;
    this.#maxBuckets = options.maxBuckets ?? 10_000;
  }

  /** Takes one token from `key`'s bucket when it has one. */
  take(key: string): RateLimitDecision {
    return this.#decide(key, true);
  }

  /** Whether `key` has a token, without taking it. */
  peek(key: string): RateLimitDecision {
    return this.#decide(key, false);
  }

  #decide(key: string, consume: boolean): RateLimitDecision {
    const now = this.#now();
    const bucket = this.#refilled(this.#buckets.get(key) ?? { tokens: this.limit, updatedAt: now }, now);
    const allowed = bucket.tokens >= 1;
    if (consume) {
      if (allowed) bucket.tokens -= 1;
      this.#buckets.set(key, bucket);
      if (this.#buckets.size > this.#maxBuckets) this.#dropFullBuckets(now);
    }
    return {
      allowed,
      limit: this.limit,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((this.limit - bucket.tokens) / this.#tokensPerMs / 1000),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.#tokensPerMs / 1000)),
    };
  }

  #refilled(bucket: Bucket, now: number): Bucket {
    bucket.tokens = Math.min(this.limit, bucket.tokens + (now - bucket.updatedAt) * this.#tokensPerMs);
    bucket.updatedAt = now;
    return bucket;
  }

  #dropFullBuckets(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (this.#refilled(bucket, now).tokens >= this.limit) this.#buckets.delete(key);
    }
  }
}
