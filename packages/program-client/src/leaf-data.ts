import type { ReadonlyUint8Array } from "@solana/kit";

import { isActionType, type ActionType } from "./action-types.js";
import { HASH_SIZE } from "./constants.js";
import {
  getLeafDataDecoder,
  getLeafDataEncoder,
  type LeafData as GeneratedLeafData,
  type LeafDataArgs,
} from "./generated/index.js";
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

/** A raw leaf as the generated codec takes it; checks only that each part fits. */
export function rawLeafDataArgs(leaf: RawLeafData): LeafDataArgs {
  const privacyFlag = typeof leaf.privacyMode === "boolean" ? Number(leaf.privacyMode) : leaf.privacyMode;
  assertU8(leaf.actionType, "actionType");
  assertU8(privacyFlag, "privacyMode");
  assertByteLength(leaf.storedHash, HASH_SIZE, "storedHash");
  return { actionType: leaf.actionType, privacyMode: privacyFlag, storedHash: leaf.storedHash };
}

export function assertValidLeafData(leaf: LeafData): void {
  assertActionType(leaf.actionType);
  assertPrivacyMode(leaf.privacyMode);
  assertByteLength(leaf.storedHash, HASH_SIZE, "storedHash");
}

/** The 34 bytes of a leaf: `action_type (u8) ‖ privacy_mode (u8) ‖ stored_hash (32)`. */
export function encodeLeafData(leaf: LeafData): Uint8Array {
  assertValidLeafData(leaf);
  return Uint8Array.from(getLeafDataEncoder().encode(rawLeafDataArgs(leaf)));
}

/** A decoded leaf as `LeafData`, or undefined when its action type or flag is out of range. */
export function toLeafData(leaf: GeneratedLeafData): LeafData | undefined {
  if (!isActionType(leaf.actionType) || leaf.privacyMode > 1) return undefined;
  return {
    actionType: leaf.actionType,
    privacyMode: leaf.privacyMode === 1,
    storedHash: Uint8Array.from(leaf.storedHash),
  };
}

/** The leaf at the start of `bytes` (34 bytes), or undefined when its action type or flag is out of range. */
export function decodeLeafData(bytes: ReadonlyUint8Array): LeafData | undefined {
  if (bytes.length < getLeafDataDecoder().fixedSize) return undefined;
  return toLeafData(getLeafDataDecoder().decode(bytes));
}

/** The Merkle leaf hash of a leaf: `H(0x00 ‖ leaf data)`. */
export function computeLeafHash(leaf: LeafData): Uint8Array {
  return hashLeaf(encodeLeafData(leaf));
}
