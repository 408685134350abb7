/**
 * Per-API-key token buckets in memory: each key may burst up to `limit` requests and earns them
 * back at `limit` per window. Each server replica counts on its own (documented in docs/api.md).
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
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: RateLimiterOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1)
      throw new RangeError("limit must be a positive integer");
    this.limit = options.limit;
    this.windowSeconds = options.windowSeconds;
    this.#tokensPerMs = options.limit / (options.windowSeconds * 1000);
    this.#now = options.now ?? Date.now;
  }

  /** Takes one token from `key`'s bucket when it has one. */
  take(key: string): RateLimitDecision {
    const now = this.#now();
    const bucket = this.#buckets.get(key) ?? { tokens: this.limit, updatedAt: now };
    bucket.tokens = Math.min(this.limit, bucket.tokens + (now - bucket.updatedAt) * this.#tokensPerMs);
    bucket.updatedAt = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.#buckets.set(key, bucket);
    return {
      allowed,
      limit: this.limit,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((this.limit - bucket.tokens) / this.#tokensPerMs / 1000),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.#tokensPerMs / 1000)),
    };
  }
}
