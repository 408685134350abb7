/**
 * The two SHA-256 implementations behind `#sha256` (node:crypto in Node.js, @noble/hashes in
 * browsers) give the same digests, checked against node:crypto as an independent reference, on
 * the FIPS vectors, multi-part input, empty input, and non-ASCII text.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";

import * as inNode from "../platform/sha256-node.js";
import * as inBrowsers from "../platform/sha256-web.js";

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const reference = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");
const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex");

const TEXTS = [
  "",
  "abc",
  "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
  "ü€𝄞 agent",
  "x".repeat(100_000),
];

for (const [runtime, implementation] of [
  ["node:crypto", inNode],
  ["@noble/hashes", inBrowsers],
] as const) {
  describe(`sha256 with ${runtime}`, () => {
    it("hashes text to the reference hex digest", () => {
      for (const text of TEXTS) assert.equal(implementation.sha256HexOfText(text), reference(text));
    });

    it("hashes the concatenation of its parts", () => {
      assert.equal(hex(implementation.sha256(utf8("ab"), utf8(""), utf8("c"))), reference("abc"));
      assert.equal(hex(implementation.sha256()), reference(""));
    });
  });
}
