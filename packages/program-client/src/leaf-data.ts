import type { ReadonlyUint8Array } from "@solana/kit";

import { isActionType, type ActionType } from "./action-types.js";
import { HASH_SIZE, LEAF_DATA_SIZE } from "./constants.js";
import { hashLeaf } from "./hashing.js";
import { assertActionType, assertByteLength, assertPrivacyMode, assertU8 } from "./validation.js";

/** One item of a batch, as the agent signed it (through the Merkle root) and the program stores it. */
export type LeafData = Readonly<{
  actionType: ActionType;
  privacyMode: boolean;
  /** The action hash, or in privacy mode the commitment. */
  storedHash: ReadonlyUint8Array;
}>;

/** Leaf fields as raw bytes, so tests can encode values the program must reject. */
export type RawLeafData = Readonly<{
  actionType: number;
  privacyMode: boolean | number;
  storedHash: ReadonlyUint8Array;
}>;

/** Writes `action_type ‖ privacy_mode ‖ stored_hash` at `offset`; checks only that each part fits. */
export function writeRawLeafData(target: Uint8Array, offset: number, leaf: RawLeafData): void {
  const privacyFlag = typeof leaf.privacyMode === "boolean" ? Number(leaf.privacyMode) : leaf.privacyMode;
  assertU8(leaf.actionType, "actionType");
  assertU8(privacyFlag, "privacyMode");
  assertByteLength(leaf.storedHash, HASH_SIZE, "storedHash");
  target[offset] = leaf.actionType;
  target[offset + 1] = privacyFlag;
  target.set(leaf.storedHash, offset + 2);
}

export function assertValidLeafData(leaf: LeafData): void {
  assertActionType(leaf.actionType);
  assertPrivacyMode(leaf.privacyMode);
  assertByteLength(leaf.storedHash, HASH_SIZE, "storedHash");
}

/** The 34 bytes of a leaf: `action_type (u8) ‖ privacy_mode (u8) ‖ stored_hash (32)`. */
export function encodeLeafData(leaf: LeafData): Uint8Array {
  assertValidLeafData(leaf);
  const bytes = new Uint8Array(LEAF_DATA_SIZE);
  writeRawLeafData(bytes, 0, leaf);
  return bytes;
}

/** The leaf at the start of `bytes` (34 bytes), or undefined when its action type or flag is out of range. */
export function decodeLeafData(bytes: ReadonlyUint8Array): LeafData | undefined {
  if (bytes.length < LEAF_DATA_SIZE) return undefined;
  const [actionType, privacyFlag] = bytes;
  if (!isActionType(actionType!) || privacyFlag! > 1) return undefined;
  return {
    actionType: actionType as ActionType,
    privacyMode: privacyFlag === 1,
    storedHash: Uint8Array.from(bytes.subarray(2, LEAF_DATA_SIZE)),
  };
}

/** The Merkle leaf hash of a leaf: `H(0x00 ‖ leaf data)`. */
export function computeLeafHash(leaf: LeafData): Uint8Array {
  return hashLeaf(encodeLeafData(leaf));
}
