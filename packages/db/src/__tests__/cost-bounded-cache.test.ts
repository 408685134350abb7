import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { CostBoundedCache } from "../queries/cost-bounded-cache.js";

/** A clock the test moves, and a computation that takes `costMs` of it and counts its runs. */
function fixture(costMs: number) {
  let now = 0;
  let runs = 0;
  const cache = new CostBoundedCache<number>({ now: () => now, maxEntries: 3 });
  const compute = async () => {
    runs++;
    now += costMs;
    return runs;
  };
  return {
    cache,
    compute,
    runs: () => runs,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe("CostBoundedCache", () => {
  it("computes a result that costs under 20 ms again on every call", async () => {
    const { cache, compute, runs } = fixture(19);
    assert.equal(await cache.get("a", compute), 1);
    assert.equal(await cache.get("a", compute), 2);
    assert.equal(runs(), 2);
  });

  it("reuses a result that cost 20 ms or more for 100 times its cost, then computes it again", async () => {
    const { cache, compute, advance } = fixture(400);
    assert.equal(await cache.get("a", compute), 1);
    advance(39_999);
    assert.equal(await cache.get("a", compute), 1);
    advance(1);
    assert.equal(await cache.get("a", compute), 2);
    // Another key is computed on its own.
    assert.equal(await cache.get("b", compute), 3);
  });

  it("gives calls made while a key is computed that computation's result", async () => {
    const { cache, compute, runs } = fixture(1);
    const results = await Promise.all([
      cache.get("a", compute),
      cache.get("a", compute),
      cache.get("a", compute),
    ]);
    assert.deepEqual(results, [1, 1, 1]);
    assert.equal(runs(), 1);
  });

  it("keeps no failure: the next call computes again", async () => {
    const { cache, compute } = fixture(400);
    await assert.rejects(
      cache.get("a", () => Promise.reject(new Error("database gone"))),
      /database gone/,
    );
    assert.equal(await cache.get("a", compute), 1);
  });

  it("holds at most maxEntries keys, forgetting the least recently computed", async () => {
    const { cache, compute } = fixture(400);
    for (const key of ["a", "b", "c", "d"]) await cache.get(key, compute);
    assert.equal(await cache.get("d", compute), 4);
    assert.equal(await cache.get("a", compute), 5);
  });
});
