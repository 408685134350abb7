/**
 * Input checks shared by the encoders and builders: each throws the ABAS_SDK error that names the
 * problem, so nothing malformed is ever encoded or sent.
 */
import {
  ABAS_SDK__INTEGER_OUT_OF_RANGE,
  ABAS_SDK__INVALID_ACTION_TYPE,
  ABAS_SDK__INVALID_ACTION_TYPE_MASK,
  ABAS_SDK__INVALID_AGENT_STATUS,
  ABAS_SDK__INVALID_BATCH_SIZE,
  ABAS_SDK__INVALID_BYTE_LENGTH,
  ABAS_SDK__INVALID_PRIVACY_FLAG_TYPE,
  AbasError,
} from "@abas/errors";
import type { ReadonlyUint8Array } from "@solana/kit";

import { MAX_BATCH_ITEMS } from "./constants.js";

const isIntegerIn = (value: unknown, min: number, max: number): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;

export function assertActionType(actionType: unknown): asserts actionType is 0 | 1 | 2 | 3 {
  if (!isIntegerIn(actionType, 0, 3)) throw new AbasError(ABAS_SDK__INVALID_ACTION_TYPE, { actionType });
}

/** A mask of action types must allow at least one type and only the four that exist. */
export function assertActionTypeMask(mask: unknown): asserts mask is number {
  if (!isIntegerIn(mask, 1, 15)) throw new AbasError(ABAS_SDK__INVALID_ACTION_TYPE_MASK, { mask });
}

/** The privacy mode is a boolean in the API; the 0/1 byte is an encoding detail. */
export function assertPrivacyMode(privacyMode: unknown): asserts privacyMode is boolean {
  if (typeof privacyMode !== "boolean") {
    throw new AbasError(ABAS_SDK__INVALID_PRIVACY_FLAG_TYPE, { privacyMode });
  }
}

export function assertAgentStatus(status: unknown): asserts status is 0 | 1 | 2 {
  if (!isIntegerIn(status, 0, 2)) throw new AbasError(ABAS_SDK__INVALID_AGENT_STATUS, { status });
}

export function assertBatchItemCount(itemCount: unknown): asserts itemCount is number {
  if (!isIntegerIn(itemCount, 1, MAX_BATCH_ITEMS)) {
    throw new AbasError(ABAS_SDK__INVALID_BATCH_SIZE, { itemCount, maxItemCount: MAX_BATCH_ITEMS });
  }
}

export function assertByteLength(bytes: ReadonlyUint8Array, expectedLength: number, field: string): void {
  if (bytes.length !== expectedLength) {
    throw new AbasError(ABAS_SDK__INVALID_BYTE_LENGTH, { field, expectedLength, actualLength: bytes.length });
  }
}

export function assertIntegerInRange(
  value: unknown,
  min: number,
  max: number,
  field: string,
): asserts value is number {
  if (!isIntegerIn(value, min, max)) {
    throw new AbasError(ABAS_SDK__INTEGER_OUT_OF_RANGE, { field, value, min, max });
  }
}

export function assertU8(value: unknown, field: string): asserts value is number {
  assertIntegerInRange(value, 0, 0xff, field);
}

export function assertU16(value: unknown, field: string): asserts value is number {
  assertIntegerInRange(value, 0, 0xffff, field);
}
