import type { Address, ReadonlyUint8Array } from "@solana/kit";

import { isActionType, isActionTypeAllowed, type ActionType } from "../action-types.js";
import {
  BATCH_DATA_FIXED_SIZE,
  HASH_SIZE,
  LEAF_DATA_SIZE,
  MAX_BATCH_ITEMS,
  SIGNATURE_SIZE,
} from "../constants.js";
import type { LeafData } from "../leaf-data.js";
import { AccountDataReader } from "./account-data-reader.js";
import {
  expectDataConsumed,
  readEnvelopeHeader,
  readEnvelopeTrailer,
  type AttestationEnvelope,
} from "./attestation-envelope.js";

/** A batch attestation: the SAS envelope and its BehaviorBatch data. */
export type BatchAccount = AttestationEnvelope &
  Readonly<{
    merkleRoot: Uint8Array;
    itemCount: number;
    /** Bit mask of the action types the items may use. */
    actionTypes: number;
    agentSignature: Uint8Array;
    operator: Address;
    timestamp: bigint;
    slot: bigint;
    leavesPublished: number;
    /** The published leaves, `leaves[i]` being item `i`; the rest of the stored leaves are not yet meaningful. */
    leaves: readonly LeafData[];
    /** Every leaf is published, so the program has checked them against the signed root. */
    isComplete: boolean;
  }>;

function isBatchDataLength(dataLength: number): boolean {
  const leafBytes = dataLength - BATCH_DATA_FIXED_SIZE;
  const itemCount = leafBytes / LEAF_DATA_SIZE;
  return Number.isInteger(itemCount) && itemCount >= 1 && itemCount <= MAX_BATCH_ITEMS;
}

function readLeaf(reader: AccountDataReader, index: number, actionTypesMask: number): LeafData {
  const field = `leaves[${index}]`;
  const actionType = reader.u8(field);
  if (!isActionType(actionType)) {
    throw reader.malformed(field, `expected an action type in 0..=3, got ${actionType}`);
  }
  if (!isActionTypeAllowed(actionTypesMask, actionType)) {
    throw reader.malformed(field, `action type ${actionType} is outside the batch's mask ${actionTypesMask}`);
  }
  const privacyMode = reader.bool(field);
  return { actionType: actionType as ActionType, privacyMode, storedHash: reader.bytes(field, HASH_SIZE) };
}

export function decodeBatchAccount(data: ReadonlyUint8Array): BatchAccount {
  const reader = new AccountDataReader(data, "Batch attestation");
  const { header, dataLength } = readEnvelopeHeader(reader);
  if (!isBatchDataLength(dataLength)) {
    throw reader.malformed("data", `${dataLength} bytes is not the length of BehaviorBatch data`);
  }
  const dataStart = reader.offset;

  const merkleRoot = reader.fixedVec("merkle_root", HASH_SIZE);
  const itemCount = reader.u8("item_count");
  if (itemCount < 1 || itemCount > MAX_BATCH_ITEMS) {
    throw reader.malformed("item_count", `expected 1..=${MAX_BATCH_ITEMS}, got ${itemCount}`);
  }
  const actionTypes = reader.u8("action_types");
  if (actionTypes < 1 || actionTypes > 15) {
    throw reader.malformed("action_types", `expected 1..=15, got ${actionTypes}`);
  }
  const agentSignature = reader.fixedVec("agent_signature", SIGNATURE_SIZE);
  const operator = reader.addressVec("operator");
  const timestamp = reader.i64("timestamp");
  const slot = reader.u64("slot");
  const leavesPublished = reader.u8("leaves_published");
  if (leavesPublished > itemCount) {
    throw reader.malformed("leaves_published", `${leavesPublished} leaves published of ${itemCount} items`);
  }
  const leavesByteLength = reader.u32("leaves");
  if (leavesByteLength !== itemCount * LEAF_DATA_SIZE) {
    throw reader.malformed(
      "leaves",
      `expected ${itemCount * LEAF_DATA_SIZE} bytes for ${itemCount} items, got ${leavesByteLength}`,
    );
  }
  reader.expectAvailable("leaves", leavesByteLength);
  const leaves = Array.from({ length: leavesPublished }, (_, i) => readLeaf(reader, i, actionTypes));
  // Leaves past `leaves_published` are skipped: a rewriting chunk can leave older leaves there.
  reader.skip("leaves", (itemCount - leavesPublished) * LEAF_DATA_SIZE);
  expectDataConsumed(reader, dataStart, dataLength);

  return {
    ...header,
    ...readEnvelopeTrailer(reader),
    merkleRoot,
    itemCount,
    actionTypes,
    agentSignature,
    operator,
    timestamp,
    slot,
    leavesPublished,
    leaves,
    isComplete: leavesPublished === itemCount,
  };
}
