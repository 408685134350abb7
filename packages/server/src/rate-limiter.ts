/**
 * Token buckets in memory, one per key (an API key's id, a client address): each key may burst up
 * to `limit` requests and earns them back at `limit` per window. Each server replica counts on its
 * own (documented in docs/api.md). The map holds at most `maxBuckets` keys, so keys an attacker
 * invents (client addresses) cannot grow it: past that, full buckets are forgotten (they remember
 * nothing), then, if more keys than that are still draining, the least recently used ones.
 */
import { monotonicMs } from "./monotonic-clock.js";

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
  /** The most keys held; default 10,000. */
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
    this.#now = options.now ?? monotonicMs;
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
      // Most recently used last: the order in which draining buckets are forgotten.
      this.#buckets.delete(key);
      this.#buckets.set(key, bucket);
      if (this.#buckets.size > this.#maxBuckets) this.#shrink(now);
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
    // (a clock that went back refills nothing)
    bucket.tokens = Math.min(
      this.limit,
      bucket.tokens + Math.max(0, now - bucket.updatedAt) * this.#tokensPerMs,
    );
    bucket.updatedAt = now;
    return bucket;
  }

  /**
   * Forgets the full buckets, then the least recently used ones down to nine tenths of
   * `maxBuckets`: a sweep of the map runs at most once per tenth of it filled again, so a flood of
   * new keys costs each request a constant share of a sweep.
   */
  #shrink(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      if (this.#refilled(bucket, now).tokens >= this.limit) this.#buckets.delete(key);
    }
    const keep = Math.floor(this.#maxBuckets * 0.9);
    for (const key of this.#buckets.keys()) {
      if (this.#buckets.size <= keep) break;
      this.#buckets.delete(key);
    }
  }

  /** How many keys are held. */
  get size(): number {
    return this.#buckets.size;
  }
}
