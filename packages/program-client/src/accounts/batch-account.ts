import type { Address, ReadonlyUint8Array } from "@solana/kit";

import {
  BATCH_DATA_FIXED_SIZE,
  HASH_SIZE,
  MAX_BATCH_ITEMS,
  MERKLE_FRONTIER_SIZE,
  SIGNATURE_SIZE,
} from "../constants.js";
import { AccountDataReader } from "./account-data-reader.js";
import {
  expectDataConsumed,
  readEnvelopeHeader,
  readEnvelopeTrailer,
  type AttestationEnvelope,
} from "./attestation-envelope.js";

/**
 * A batch attestation: the SAS envelope and its BehaviorBatch data. The leaves are not in the
 * account: they are the instruction data of the batch's `publish_batch_leaves` transactions.
 */
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
    /** Every leaf is published and the program checked that they reproduce the signed root. */
    isComplete: boolean;
  }>;

/** Pending: the fixed fields and the frontier; complete: the fixed fields only. */
const isBatchDataLength = (dataLength: number): boolean =>
  dataLength === BATCH_DATA_FIXED_SIZE || dataLength === BATCH_DATA_FIXED_SIZE + MERKLE_FRONTIER_SIZE;

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
  const isComplete = leavesPublished === itemCount;
  const frontierLength = reader.u32("frontier");
  const expectedFrontierLength = isComplete ? 0 : MERKLE_FRONTIER_SIZE;
  if (frontierLength !== expectedFrontierLength) {
    throw reader.malformed(
      "frontier",
      `expected ${expectedFrontierLength} bytes for a ${isComplete ? "complete" : "pending"} batch, got ${frontierLength}`,
    );
  }
  reader.skip("frontier", frontierLength);
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
    isComplete,
  };
}
