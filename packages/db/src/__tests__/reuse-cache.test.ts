import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ReuseCache } from "../queries/reuse-cache.js";

/** A clock the test moves; each computation returns its run number, reused for 1 s from run 2. */
function fixture() {
  let now = 0;
  let runs = 0;
  const cache = new ReuseCache<number>({
    now: () => now,
    maxEntries: 3,
    reuseMs: (run) => (run >= 2 ? 1_000 : 0),
  });
  const compute = async () => ++runs;
  return { cache, compute, runs: () => runs, advance: (ms: number) => (now += ms) };
}

describe("ReuseCache", () => {
  it("computes again on every call a result whose reuse time is 0", async () => {
    const { cache, compute } = fixture();
    assert.equal(await cache.get("a", compute), 1);
    assert.equal(await cache.get("a", compute), 2);
  });

  it("reuses a result for its reuse time, then computes it again", async () => {
    const { cache, compute, advance } = fixture();
    await cache.get("a", compute);
    assert.equal(await cache.get("a", compute), 2);
    advance(999);
    assert.equal(await cache.get("a", compute), 2);
    advance(1);
    assert.equal(await cache.get("a", compute), 3);
    // Another key is computed on its own.
    assert.equal(await cache.get("b", compute), 4);
  });

  it("gives calls made while a key is computed that computation's result", async () => {
    const { cache, compute, runs } = fixture();
    const results = await Promise.all([
      cache.get("a", compute),
      cache.get("a", compute),
      cache.get("a", compute),
    ]);
    assert.deepEqual(results, [1, 1, 1]);
    assert.equal(runs(), 1);
  });

  it("keeps no failure: the next call computes again", async () => {
    const { cache, compute } = fixture();
    await assert.rejects(
      cache.get("a", () => Promise.reject(new Error("database gone"))),
      /database gone/,
    );
    assert.equal(await cache.get("a", compute), 1);
  });

  it("holds at most maxEntries keys, forgetting the least recently computed", async () => {
    const { cache, compute } = fixture();
    await cache.get("warm-up", compute);
    for (const key of ["a", "b", "c", "d"]) await cache.get(key, compute);
    assert.equal(await cache.get("d", compute), 5);
    assert.equal(await cache.get("a", compute), 6);
  });
});
