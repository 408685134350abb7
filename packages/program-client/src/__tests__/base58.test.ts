/**
 * The package's own base58 and address codecs against kit's: the same text, the same bytes, and for
 * anything that is not an address, kit's own error.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, test } from "node:test";

import {
  address,
  getAddressDecoder as getKitAddressDecoder,
  getAddressEncoder as getKitAddressEncoder,
  getBase58Codec,
  isSolanaError,
} from "@solana/kit";

import { decodeBase58, encodeBase58 } from "../base58.js";
import { getAddressDecoder, getAddressEncoder, toAddress } from "../fast-addresses.js";

const kitBase58 = getBase58Codec();

/** Byte strings of every length up to 80, some with leading zero bytes, some all zeros. */
function byteSamples(): Uint8Array[] {
  const samples = [new Uint8Array(0), new Uint8Array(1), new Uint8Array(32), new Uint8Array([0, 0, 1])];
  for (let length = 1; length <= 80; length += 1) {
    for (let round = 0; round < 30; round += 1) {
      const bytes = new Uint8Array(randomBytes(length));
      if (round % 3 === 0) bytes.fill(0, 0, Math.min(length, 1 + (round % 5)));
      samples.push(bytes);
    }
  }
  return samples;
}

/** What `run` throws, as kit's error code, or "returned". */
function outcome(run: () => unknown): number | string {
  try {
    run();
    return "returned";
  } catch (error) {
    assert.ok(isSolanaError(error), `not a SolanaError: ${String(error)}`);
    return error.context.__code;
  }
}

describe("base58", () => {
  test("encodes as kit does and decodes back, leading zeros and empty input included", () => {
    for (const bytes of byteSamples()) {
      const text = encodeBase58(bytes);
      assert.equal(text, kitBase58.decode(bytes), Buffer.from(bytes).toString("hex"));
      assert.deepEqual(decodeBase58(text), bytes);
      assert.deepEqual(decodeBase58(text), Uint8Array.from(kitBase58.encode(text)));
    }
  });

  test("text outside the alphabet decodes to undefined", () => {
    for (const text of ["0", "O", "I", "l", "abc!", "1111é", "11 1", "+"]) {
      assert.equal(decodeBase58(text), undefined, text);
    }
  });
});

describe("address codecs", () => {
  test("encode and decode every address as kit's codecs do", () => {
    const [encoder, decoder] = [getAddressEncoder(), getAddressDecoder()];
    const [kitEncoder, kitDecoder] = [getKitAddressEncoder(), getKitAddressDecoder()];
    for (let round = 0; round < 2_000; round += 1) {
      const bytes = new Uint8Array(randomBytes(32));
      if (round % 10 === 0) bytes.fill(0, 0, round % 33);
      const text = decoder.decode(bytes);
      assert.equal(text, kitDecoder.decode(bytes));
      assert.deepEqual(encoder.encode(text), kitEncoder.encode(text));
      assert.equal(toAddress(text), address(text));
    }
  });

  test("refuse what kit refuses, with kit's own error codes", () => {
    const notAddresses = [
      "",
      "1",
      "1".repeat(31),
      "1".repeat(45),
      "0".repeat(32),
      "z".repeat(44), // 44 digits that make more than 32 bytes
      "2".repeat(32) + "l",
    ];
    for (const text of notAddresses) {
      const expected = outcome(() => address(text));
      assert.notEqual(expected, "returned", text);
      assert.equal(
        outcome(() => toAddress(text)),
        expected,
        text,
      );
      assert.equal(
        outcome(() => getAddressEncoder().encode(text as never)),
        expected,
        text,
      );
    }
    for (const length of [0, 1, 31]) {
      const bytes = new Uint8Array(length);
      assert.equal(
        outcome(() => getAddressDecoder().decode(bytes)),
        outcome(() => getKitAddressDecoder().decode(bytes)),
      );
    }
  });
});
