import type { ReadonlyUint8Array } from "@solana/kit";

import {
  BATCH_COMPLETE_ACCOUNT_SIZE,
  BATCH_PENDING_ACCOUNT_SIZE,
  MAX_BATCH_ITEMS,
  MERKLE_FRONTIER_SIZE,
} from "../constants.js";
import {
  BATCH_DISCRIMINATOR,
  getBatchDecoder,
  getBatchEncoder,
  type Batch,
  type BehaviorBatchData,
} from "../generated/index.js";
import { decodeEnvelopeAndData, type AttestationEnvelope } from "./attestation-envelope.js";
import { malformedAccountData, type GeneratedAccountLayout, type OwnedBytes } from "./generated-account.js";

/**
 * A batch attestation: the SAS envelope and its BehaviorBatch data, without the Merkle frontier
 * the program keeps while leaves are pending. The leaves are not in the account: they are the
 * instruction data of the batch's `publish_batch_leaves` transactions.
 */
export type BatchAccount = AttestationEnvelope &
  OwnedBytes<Omit<BehaviorBatchData, "frontier">> &
  Readonly<{
    /** Every leaf is published and the program checked that they reproduce the signed root. */
    isComplete: boolean;
  }>;

const BATCH_LAYOUT: GeneratedAccountLayout<Batch> = {
  accountType: "Batch attestation",
  discriminator: BATCH_DISCRIMINATOR,
  decoder: getBatchDecoder(),
  encoder: getBatchEncoder(),
  sizes: [BATCH_COMPLETE_ACCOUNT_SIZE, BATCH_PENDING_ACCOUNT_SIZE],
};

const malformed = (field: string, reason: string) =>
  malformedAccountData(BATCH_LAYOUT.accountType, `${field} ${reason}`, field);

export function decodeBatchAccount(data: ReadonlyUint8Array): BatchAccount {
  const [envelope, { frontier, ...fields }] = decodeEnvelopeAndData(BATCH_LAYOUT, data);
  const { itemCount, actionTypes, leavesPublished } = fields;
  if (itemCount < 1 || itemCount > MAX_BATCH_ITEMS) {
    throw malformed("item_count", `is ${itemCount}, expected 1..=${MAX_BATCH_ITEMS}`);
  }
  if (actionTypes < 1 || actionTypes > 15) {
    throw malformed("action_types", `is ${actionTypes}, expected a mask in 1..=15`);
  }
  if (leavesPublished > itemCount) {
    throw malformed("leaves_published", `is ${leavesPublished}, more than the ${itemCount} items`);
  }
  const isComplete = leavesPublished === itemCount;
  const frontierSize = isComplete ? 0 : MERKLE_FRONTIER_SIZE;
  if (frontier.length !== frontierSize) {
    throw malformed(
      "frontier",
      `is ${frontier.length} bytes, expected ${frontierSize} for a ${isComplete ? "complete" : "pending"} batch`,
    );
  }
  return { ...envelope, ...fields, isComplete };
}
