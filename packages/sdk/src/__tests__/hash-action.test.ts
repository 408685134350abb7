import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ABAS_SDK__INVALID_ACTION_PAYLOAD, isAbasError } from "@abas/errors";

import { canonicalize } from "../canonicalize.js";
import { AttestationClient } from "../client.js";
import { hashAction } from "../hash-action.js";

describe("hashAction", () => {
  it("is SHA-256 of the UTF-8 bytes, in lowercase hex (FIPS 180-2 and sha256sum vectors)", async () => {
    const vectors: [payload: string, hash: string][] = [
      ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
      ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
      // U+20AC is three UTF-8 bytes (e2 82 ac), not one UTF-16 unit
      ["\u20ac", "c4cc90ed3d26f12d4b08a75140970a7904035c31cbb4515a83f19b9003c00d1d"],
      ['{"a":1,"b":2}', "43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777"],
    ];
    for (const [payload, hash] of vectors) {
      assert.equal(await hashAction(payload), hash, JSON.stringify(payload));
    }
  });

  it("is the client's static hashAction, deterministic and 64 lowercase hex characters", async () => {
    const payload = JSON.stringify({ tool: "search", query: "weather in Lisbon" });
    const first = await AttestationClient.hashAction(payload);
    assert.equal(first, await AttestationClient.hashAction(payload));
    assert.match(first, /^[0-9a-f]{64}$/);
  });

  it("hashes JSON.stringify output by key order, and canonicalize output regardless of it", async () => {
    // Given one object written with its keys in two orders
    const first = { a: 1, b: 2 };
    const second = { b: 2, a: 1 };
    // Then JSON.stringify gives two hashes, canonicalize one
    assert.notEqual(await hashAction(JSON.stringify(first)), await hashAction(JSON.stringify(second)));
    assert.equal(await hashAction(canonicalize(first)), await hashAction(canonicalize(second)));
    assert.equal(
      await hashAction(canonicalize(second)),
      "43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777",
    );
  });

  it("refuses a payload that is not a string, or that has no UTF-8 encoding", async () => {
    for (const payload of [undefined, null, 42, { a: 1 }, "lone \ud800 surrogate"]) {
      await assert.rejects(
        () => hashAction(payload as string),
        (error: unknown) => isAbasError(error, ABAS_SDK__INVALID_ACTION_PAYLOAD),
        `accepted ${String(payload)}`,
      );
    }
  });
});
