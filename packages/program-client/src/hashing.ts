import type { ReadonlyUint8Array } from "@solana/kit";

// SHA-256 comes from node:crypto in Node.js and from @noble/hashes elsewhere (package.json `imports`).
import * as runtime from "#sha256";

import {
  COMMITMENT_TAG,
  HASH_SIZE,
  LEAF_DATA_SIZE,
  MERKLE_LEAF_PREFIX,
  MERKLE_NODE_PREFIX,
  SALT_SIZE,
} from "./constants.js";
import { assertByteLength } from "./validation.js";

/** SHA-256 of the concatenation of `parts`. */
export function sha256(...parts: ReadonlyUint8Array[]): Uint8Array {
  return runtime.sha256(...parts);
}

/** SHA-256 of the UTF-8 bytes of `text`, as 64 lowercase hex characters. */
export function sha256HexOfText(text: string): string {
  return runtime.sha256HexOfText(text);
}

const COMMITMENT_TAG_BYTES = new TextEncoder().encode(COMMITMENT_TAG);

/** The privacy commitment `H("abas:commit:v1" ‖ salt ‖ action_hash)` stored instead of the action hash. */
export function computeCommitment(salt: ReadonlyUint8Array, actionHash: ReadonlyUint8Array): Uint8Array {
  assertByteLength(salt, SALT_SIZE, "salt");
  assertByteLength(actionHash, HASH_SIZE, "actionHash");
  return sha256(COMMITMENT_TAG_BYTES, salt, actionHash);
}

/** `H(0x00 ‖ leaf data)`: the prefix keeps a leaf from ever hashing like an inner node. */
export function hashLeaf(leafData: ReadonlyUint8Array): Uint8Array {
  assertByteLength(leafData, LEAF_DATA_SIZE, "leafData");
  return sha256(Uint8Array.of(MERKLE_LEAF_PREFIX), leafData);
}

/** `H(0x01 ‖ left ‖ right)`. */
export function hashNode(left: ReadonlyUint8Array, right: ReadonlyUint8Array): Uint8Array {
  assertByteLength(left, HASH_SIZE, "left");
  assertByteLength(right, HASH_SIZE, "right");
  return sha256(Uint8Array.of(MERKLE_NODE_PREFIX), left, right);
}
