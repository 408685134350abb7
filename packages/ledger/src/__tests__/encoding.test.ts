import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";

import { getBase58Decoder } from "@solana/kit";

import { fromBase58, toBase58 } from "../encoding.js";

describe("base58", () => {
  const kit = getBase58Decoder();

  test("toBase58 matches @solana/kit's codec, leading zero bytes and empty input included", () => {
    // Given byte strings of every length up to 80, some starting with zero bytes, some all zeros
    const samples: Uint8Array[] = [new Uint8Array(0), new Uint8Array(32), new Uint8Array([0, 0, 1])];
    for (let length = 1; length <= 80; length += 1) {
      for (let round = 0; round < 40; round += 1) {
        const bytes = new Uint8Array(randomBytes(length));
        const zeros = round % 4 === 0 ? Math.min(length, round % 7) : 0;
        bytes.fill(0, 0, zeros);
        samples.push(bytes);
      }
    }
    for (const bytes of samples) {
      // When both encode it, then they agree, and decoding gives the bytes back
      const text = toBase58(bytes);
      assert.equal(text, kit.decode(bytes), Buffer.from(bytes).toString("hex"));
      assert.deepEqual(fromBase58(text), bytes);
    }
  });
});
