import type { Address, ReadonlyUint8Array } from "@solana/kit";

import { isActionType, type ActionType } from "../action-types.js";
import { ATTESTATION_ACCOUNT_SIZE, ATTESTATION_DATA_SIZE, HASH_SIZE, SIGNATURE_SIZE } from "../constants.js";
import { AccountDataReader } from "./account-data-reader.js";
import {
  expectDataConsumed,
  readEnvelopeHeader,
  readEnvelopeTrailer,
  type AttestationEnvelope,
} from "./attestation-envelope.js";

/** A single-action attestation: the SAS envelope and its BehaviorAttestation data. */
export type AttestationAccount = AttestationEnvelope &
  Readonly<{
    actionType: ActionType;
    privacyMode: boolean;
    /** The action hash, or in privacy mode the commitment. */
    storedHash: Uint8Array;
    agentSignature: Uint8Array;
    operator: Address;
    timestamp: bigint;
    slot: bigint;
  }>;

export function decodeAttestationAccount(data: ReadonlyUint8Array): AttestationAccount {
  const reader = new AccountDataReader(data, "Attestation");
  const { header, dataLength } = readEnvelopeHeader(reader, ATTESTATION_ACCOUNT_SIZE);
  if (dataLength !== ATTESTATION_DATA_SIZE) {
    throw reader.malformed(
      "data",
      `expected ${ATTESTATION_DATA_SIZE} bytes of BehaviorAttestation data, got ${dataLength}`,
    );
  }
  const dataStart = reader.offset;

  const actionType = reader.u8("action_type");
  if (!isActionType(actionType)) throw reader.malformed("action_type", `expected 0..=3, got ${actionType}`);
  const privacyMode = reader.bool("privacy_mode");
  const storedHash = reader.fixedVec("action_hash", HASH_SIZE);
  const agentSignature = reader.fixedVec("agent_signature", SIGNATURE_SIZE);
  const operator = reader.addressVec("operator");
  const timestamp = reader.i64("timestamp");
  const slot = reader.u64("slot");
  expectDataConsumed(reader, dataStart, dataLength);

  return {
    ...header,
    ...readEnvelopeTrailer(reader),
    actionType,
    privacyMode,
    storedHash,
    agentSignature,
    operator,
    timestamp,
    slot,
  };
}
