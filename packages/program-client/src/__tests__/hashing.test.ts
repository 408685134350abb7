import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";

import {
  ABAS_SDK__INVALID_ACTION_TYPE,
  ABAS_SDK__INVALID_BYTE_LENGTH,
  ABAS_SDK__INVALID_PRIVACY_FLAG_TYPE,
} from "@abas/errors";

import { ActionType } from "../action-types.js";
import { computeCommitment, hashLeaf, hashNode, sha256 } from "../hashing.js";
import { bytesToHex } from "../hex.js";
import { computeLeafHash, encodeLeafData } from "../leaf-data.js";
import { assertThrowsAbasError } from "./assert-abas-error.js";
import { ascii, bytesOf } from "./byte-builder.js";
import { STORED_HASH } from "./fixtures.js";

/** SHA-256 straight from node:crypto, as an independent reference. */
const referenceSha256 = (...parts: Uint8Array[]): Uint8Array =>
  new Uint8Array(createHash("sha256").update(Buffer.concat(parts)).digest());

describe("sha256", () => {
  it("matches the FIPS 180-2 test vector for 'abc'", () => {
    assert.equal(
      bytesToHex(sha256(ascii("abc"))),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });

  it("hashes the concatenation of its parts", () => {
    assert.deepEqual(sha256(ascii("ab"), ascii(""), ascii("c")), sha256(ascii("abc")));
  });

  it("returns a plain Uint8Array", () => {
    assert.equal(Object.getPrototypeOf(sha256(ascii("x"))), Uint8Array.prototype);
  });
});

describe("privacy commitment", () => {
  it('is H("abas:commit:v1" ‖ salt ‖ action_hash)', () => {
    // Given a salt and an action hash
    const salt = bytesOf(32, 0x5a);
    // When the commitment is computed
    const commitment = computeCommitment(salt, STORED_HASH);
    // Then it is the documented hash
    assert.deepEqual(commitment, referenceSha256(ascii("abas:commit:v1"), salt, STORED_HASH));
  });

  it("changes with the salt, so the action hash cannot be guessed from it", () => {
    assert.notDeepEqual(
      computeCommitment(bytesOf(32, 1), STORED_HASH),
      computeCommitment(bytesOf(32, 2), STORED_HASH),
    );
  });

  it("rejects a salt or an action hash that is not 32 bytes", () => {
    assertThrowsAbasError(
      () => computeCommitment(bytesOf(31, 0), STORED_HASH),
      ABAS_SDK__INVALID_BYTE_LENGTH,
    );
    assertThrowsAbasError(
      () => computeCommitment(bytesOf(32, 0), bytesOf(64, 0)),
      ABAS_SDK__INVALID_BYTE_LENGTH,
    );
  });
});

describe("leaf data", () => {
  it("is action_type ‖ privacy_mode ‖ stored_hash, 34 bytes", () => {
    const leafData = encodeLeafData({
      actionType: ActionType.Decision,
      privacyMode: true,
      storedHash: STORED_HASH,
    });
    assert.deepEqual(leafData, Uint8Array.from([2, 1, ...STORED_HASH]));
  });

  it("rejects an action type above 3, a non-boolean privacy mode and a short hash", () => {
    const valid = {
      actionType: ActionType.Transaction,
      privacyMode: false,
      storedHash: STORED_HASH,
    } as const;
    assertThrowsAbasError(
      () => encodeLeafData({ ...valid, actionType: 4 as ActionType }),
      ABAS_SDK__INVALID_ACTION_TYPE,
    );
    assertThrowsAbasError(
      () => encodeLeafData({ ...valid, privacyMode: "yes" as unknown as boolean }),
      ABAS_SDK__INVALID_PRIVACY_FLAG_TYPE,
    );
    assertThrowsAbasError(
      () => encodeLeafData({ ...valid, storedHash: bytesOf(16, 0) }),
      ABAS_SDK__INVALID_BYTE_LENGTH,
    );
  });
});

describe("Merkle hashing", () => {
  it("hashes a leaf as H(0x00 ‖ leaf data)", () => {
    const leafData = Uint8Array.from([1, 0, ...STORED_HASH]);
    assert.deepEqual(hashLeaf(leafData), referenceSha256(Uint8Array.of(0), leafData));
  });

  it("hashes a leaf's fields the same way", () => {
    const leaf = { actionType: ActionType.ToolCall, privacyMode: false, storedHash: STORED_HASH } as const;
    assert.deepEqual(computeLeafHash(leaf), referenceSha256(Uint8Array.of(0, 1, 0), STORED_HASH));
  });

  it("hashes a node as H(0x01 ‖ left ‖ right)", () => {
    const left = bytesOf(32, 0x11);
    const right = bytesOf(32, 0x22);
    assert.deepEqual(hashNode(left, right), referenceSha256(Uint8Array.of(1), left, right));
  });

  it("never hashes a leaf like a node: the prefixes differ", () => {
    // Given 66 bytes that could be read as either a node's children or (wrongly) as leaf data
    const left = bytesOf(32, 0x33);
    const right = bytesOf(32, 0x44);
    // Then node hashing is not plain SHA-256 of the children
    assert.notDeepEqual(hashNode(left, right), referenceSha256(left, right));
  });

  it("rejects leaf data that is not 34 bytes and children that are not 32 bytes", () => {
    assertThrowsAbasError(() => hashLeaf(bytesOf(33, 0)), ABAS_SDK__INVALID_BYTE_LENGTH);
    assertThrowsAbasError(() => hashNode(bytesOf(32, 0), bytesOf(31, 0)), ABAS_SDK__INVALID_BYTE_LENGTH);
  });
});
