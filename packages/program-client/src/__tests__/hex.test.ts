import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ABAS_SDK__INVALID_HEX_STRING_CHARACTERS, ABAS_SDK__INVALID_HEX_STRING_LENGTH } from "@abas/errors";

import { bytesToHex, hexToBytes } from "../hex.js";
import { assertThrowsAbasError } from "./assert-abas-error.js";

describe("hex", () => {
  it("writes bytes as lowercase hex, two characters each", () => {
    assert.equal(bytesToHex(Uint8Array.of(0, 1, 0xab, 0xff)), "0001abff");
    assert.equal(bytesToHex(new Uint8Array()), "");
  });

  it("reads lowercase and uppercase hex of the exact length", () => {
    assert.deepEqual(hexToBytes("0001abff", 4), Uint8Array.of(0, 1, 0xab, 0xff));
    assert.deepEqual(hexToBytes("0001ABFF", 4), Uint8Array.of(0, 1, 0xab, 0xff));
  });

  it("round-trips 32 bytes", () => {
    const bytes = Uint8Array.from({ length: 32 }, (_, i) => i * 7);
    assert.deepEqual(hexToBytes(bytesToHex(bytes), 32), bytes);
  });

  it("rejects a string of the wrong length, naming both lengths", () => {
    const error = assertThrowsAbasError(() => hexToBytes("abc", 2), ABAS_SDK__INVALID_HEX_STRING_LENGTH);
    assert.equal(error.context.expectedLength, 4);
    assert.equal(error.context.actualLength, 3);
    assertThrowsAbasError(() => hexToBytes("0x" + "00".repeat(32), 32), ABAS_SDK__INVALID_HEX_STRING_LENGTH);
  });

  it("rejects non-hex characters, naming the first position without echoing the input", () => {
    const error = assertThrowsAbasError(() => hexToBytes("00g0", 2), ABAS_SDK__INVALID_HEX_STRING_CHARACTERS);
    assert.equal(error.context.position, 2);
    assert.doesNotMatch(error.message, /00g0/);
    assertThrowsAbasError(() => hexToBytes("00 0", 2), ABAS_SDK__INVALID_HEX_STRING_CHARACTERS);
    assertThrowsAbasError(() => hexToBytes("+1ff", 2), ABAS_SDK__INVALID_HEX_STRING_CHARACTERS);
  });
});
