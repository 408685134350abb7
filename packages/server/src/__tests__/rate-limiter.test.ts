import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { TokenBucketRateLimiter } from "../rate-limiter.js";

describe("token bucket rate limiter", () => {
  it("allows a burst of `limit`, then one request per limit/window as tokens come back", () => {
    // Given 60 requests per minute and a controllable clock
    let now = 0;
    const limiter = new TokenBucketRateLimiter({ limit: 60, windowSeconds: 60, now: () => now });
    // When 60 requests arrive at once, they all pass
    for (let request = 1; request <= 60; request++)
      assert.equal(limiter.take("k").allowed, true, `request ${request}`);
    // Then the 61st is refused, with a wait of one second (one token per second)
    const refused = limiter.take("k");
    assert.deepEqual([refused.allowed, refused.remaining, refused.retryAfterSeconds], [false, 0, 1]);
    // And after one second exactly one more passes
    now += 1000;
    assert.equal(limiter.take("k").allowed, true);
    assert.equal(limiter.take("k").allowed, false);
  });

  it("refills to the limit and never beyond", () => {
    let now = 0;
    const limiter = new TokenBucketRateLimiter({ limit: 3, windowSeconds: 60, now: () => now });
    for (let i = 0; i < 3; i++) limiter.take("k");
    now += 10 * 60_000;
    const first = limiter.take("k");
    assert.deepEqual([first.allowed, first.remaining, first.resetSeconds], [true, 2, 20]);
  });

  it("takes a clock that went back as no time passed, not as a debt", () => {
    // Given a key that spent 2 of 3 requests
    let now = 3_600_000;
    const limiter = new TokenBucketRateLimiter({ limit: 3, windowSeconds: 60, now: () => now });
    limiter.take("k");
    limiter.take("k");
    // When the clock steps back an hour
    now -= 3_600_000;
    // Then the key still has its one request, and waits 20 s for the next, not an hour
    const last = limiter.take("k");
    const refused = limiter.take("k");
    assert.deepEqual([last.allowed, refused.allowed, refused.retryAfterSeconds], [true, false, 20]);
  });

  it("runs on the monotonic clock by default: a step of the wall clock changes nothing", () => {
    // Given a wall clock this test moves (Date.now), and a limiter made on the default clock
    const realNow = Date.now;
    let wall = realNow();
    Date.now = () => wall;
    try {
      const limiter = new TokenBucketRateLimiter({ limit: 1, windowSeconds: 60 });
      assert.equal(limiter.take("k").allowed, true);
      // When the wall clock steps back an hour
      wall -= 3_600_000;
      // Then the next request waits the minute of its token, not an hour more
      assert.equal(limiter.take("k").retryAfterSeconds, 60);
    } finally {
      Date.now = realNow;
    }
  });

  it("keeps one bucket per key", () => {
    const limiter = new TokenBucketRateLimiter({ limit: 1, windowSeconds: 60, now: () => 0 });
    assert.equal(limiter.take("a").allowed, true);
    assert.equal(limiter.take("a").allowed, false);
    assert.equal(limiter.take("b").allowed, true);
  });

  it("holds at most `maxBuckets` keys even when every key is still draining, forgetting the least recently used", () => {
    // Given a clock that stands still, so that no bucket ever fills again
    const limiter = new TokenBucketRateLimiter({
      limit: 1,
      windowSeconds: 60,
      now: () => 0,
      maxBuckets: 100,
    });
    // When 10,000 client addresses each spend their one request
    for (let client = 0; client < 10_000; client++) limiter.take(`client ${client}`);
    // Then the map stays bounded, and the most recent clients are still refused
    assert.ok(limiter.size <= 100, `${limiter.size} buckets`);
    for (let client = 9_990; client < 10_000; client++)
      assert.equal(limiter.peek(`client ${client}`).allowed, false, `client ${client}`);
  });
});
