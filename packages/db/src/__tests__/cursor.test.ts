import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ABAS_API__INVALID_CURSOR, isAbasError } from "@abas/errors";

import { decodeCursor, encodeCursor } from "../queries/cursor.js";

function assertInvalidCursor(cursor: string): void {
  assert.throws(
    () => decodeCursor(cursor),
    (error) => isAbasError(error, ABAS_API__INVALID_CURSOR),
    `accepted ${JSON.stringify(cursor)}`,
  );
}

describe("pagination cursor", () => {
  it("decodes what it encodes", () => {
    // Given positions from the first row to the largest safe integers
    for (const position of [
      { slot: 0, seq: 0 },
      { slot: 412_345_678, seq: 1_000_001 },
      { slot: Number.MAX_SAFE_INTEGER, seq: Number.MAX_SAFE_INTEGER },
    ]) {
      // When one is encoded and decoded again
      // Then the same position comes back
      assert.deepEqual(decodeCursor(encodeCursor(position)), position);
    }
  });

  it("is opaque base64url text", () => {
    assert.match(encodeCursor({ slot: 123, seq: 45 }), /^[A-Za-z0-9_-]+$/);
  });

  it("refuses text that is not base64url, is empty or is too long", () => {
    for (const cursor of ["", "abc$", "a b", "YWJj=", "x".repeat(45)]) assertInvalidCursor(cursor);
  });

  it("refuses base64url that does not decode to <slot>.<seq>", () => {
    const encode = (text: string) => Buffer.from(text).toString("base64url");
    for (const text of ["12", "12.", ".3", "1.2.3", "-1.2", "1.-2", "01.2", "1.02", "1e3.2", "a.b", " 1.2"]) {
      assertInvalidCursor(encode(text));
    }
  });

  it("refuses positions beyond the safe integer range", () => {
    assertInvalidCursor(Buffer.from("9007199254740993.1").toString("base64url"));
  });

  it("refuses a non-canonical spelling of a valid cursor", () => {
    // Given a valid cursor whose last character carries unused padding bits
    const cursor = encodeCursor({ slot: 1, seq: 2 }); // "1.2" -> "MS4y"; 3 bytes use every bit
    const withTrailingBits = encodeCursor({ slot: 10, seq: 2 }); // "10.2" -> 4 bytes, 6 chars
    const last = withTrailingBits.at(-1)!;
    const tampered =
      withTrailingBits.slice(0, -1) + (last === "A" ? "B" : String.fromCharCode(last.charCodeAt(0) + 1));
    // Then the canonical form decodes and the tampered one does not
    assert.deepEqual(decodeCursor(cursor), { slot: 1, seq: 2 });
    assert.equal(Buffer.from(tampered, "base64url").toString(), "10.2");
    assertInvalidCursor(tampered);
  });
});
