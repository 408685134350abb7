import { getAddressEncoder, type Address, type ReadonlyUint8Array } from "@solana/kit";

import type { ActionType } from "./action-types.js";
import {
  ATTEST_MESSAGE_SIZE,
  ATTEST_MESSAGE_TAG,
  BATCH_MESSAGE_SIZE,
  BATCH_MESSAGE_TAG,
  HASH_SIZE,
} from "./constants.js";
import {
  assertActionType,
  assertActionTypeMask,
  assertBatchItemCount,
  assertByteLength,
  assertPrivacyMode,
} from "./validation.js";

/** Concatenates fixed-length parts; every part has a fixed length, so no two inputs collide. */
function concatenate(size: number, parts: readonly (ReadonlyUint8Array | number)[]): Uint8Array {
  const message = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    if (typeof part === "number") {
      message[offset++] = part;
    } else {
      message.set(part, offset);
      offset += part.length;
    }
  }
  return message;
}

const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);

export type AttestMessageInput = Readonly<{
  programId: Address;
  agent: Address;
  actionType: ActionType;
  privacyMode: boolean;
  storedHash: ReadonlyUint8Array;
}>;

/** `"abas:attest:v1" ‖ program ‖ agent ‖ action_type ‖ privacy_mode ‖ stored_hash`: 112 bytes the agent signs. */
export function buildAttestMessage({
  programId,
  agent,
  actionType,
  privacyMode,
  storedHash,
}: AttestMessageInput): Uint8Array {
  assertActionType(actionType);
  assertPrivacyMode(privacyMode);
  assertByteLength(storedHash, HASH_SIZE, "storedHash");
  const addressEncoder = getAddressEncoder();
  return concatenate(ATTEST_MESSAGE_SIZE, [
    ascii(ATTEST_MESSAGE_TAG),
    addressEncoder.encode(programId),
    addressEncoder.encode(agent),
    actionType,
    Number(privacyMode),
    storedHash,
  ]);
}

export type BatchMessageInput = Readonly<{
  programId: Address;
  agent: Address;
  itemCount: number;
  /** Bit mask of the action types the items may use (see `actionTypesMask`). */
  actionTypes: number;
  merkleRoot: ReadonlyUint8Array;
}>;

/** `"abas:batch:v1" ‖ program ‖ agent ‖ item_count ‖ action_types ‖ merkle_root`: 111 bytes the agent signs. */
export function buildBatchMessage({
  programId,
  agent,
  itemCount,
  actionTypes,
  merkleRoot,
}: BatchMessageInput): Uint8Array {
  assertBatchItemCount(itemCount);
  assertActionTypeMask(actionTypes);
  assertByteLength(merkleRoot, HASH_SIZE, "merkleRoot");
  const addressEncoder = getAddressEncoder();
  return concatenate(BATCH_MESSAGE_SIZE, [
    ascii(BATCH_MESSAGE_TAG),
    addressEncoder.encode(programId),
    addressEncoder.encode(agent),
    itemCount,
    actionTypes,
    merkleRoot,
  ]);
}
