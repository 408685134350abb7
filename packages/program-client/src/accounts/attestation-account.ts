import type { ReadonlyUint8Array } from "@solana/kit";

import { isActionType, type ActionType } from "../action-types.js";
import { ATTESTATION_ACCOUNT_SIZE } from "../constants.js";
import {
  ATTESTATION_DISCRIMINATOR,
  getAttestationDecoder,
  getAttestationEncoder,
  type Attestation,
  type BehaviorAttestationData,
} from "../generated/index.js";
import { decodeEnvelopeAndData, type AttestationEnvelope } from "./attestation-envelope.js";
import { malformedAccountData, type GeneratedAccountLayout, type OwnedBytes } from "./generated-account.js";

/** A single-action attestation: the SAS envelope and its BehaviorAttestation data. */
export type AttestationAccount = AttestationEnvelope &
  OwnedBytes<Omit<BehaviorAttestationData, "actionType" | "actionHash">> &
  Readonly<{
    actionType: ActionType;
    /** The action hash, or in privacy mode the commitment. */
    storedHash: Uint8Array;
  }>;

const ATTESTATION_LAYOUT: GeneratedAccountLayout<Attestation> = {
  accountType: "Attestation",
  discriminator: ATTESTATION_DISCRIMINATOR,
  decoder: getAttestationDecoder(),
  encoder: getAttestationEncoder(),
  size: ATTESTATION_ACCOUNT_SIZE,
};

export function decodeAttestationAccount(data: ReadonlyUint8Array): AttestationAccount {
  const [envelope, { actionType, actionHash, ...fields }] = decodeEnvelopeAndData(ATTESTATION_LAYOUT, data);
  // The generated enum and the domain's action types are both the IDL's; this keeps them so.
  if (!isActionType(actionType)) {
    throw malformedAccountData("Attestation", `action_type is ${actionType}, expected 0..=3`, "action_type");
  }
  return { ...envelope, ...fields, actionType, storedHash: actionHash };
}
