import { ABAS_SDK__INVALID_ARGUMENT, AbasError } from "@abas/errors";
import { bytesToHex } from "@abas/program-client";

import { generateSalt } from "../attest.js";
import { canonicalize } from "../canonicalize.js";
import { hashActionNow } from "../hash-action.js";
import {
  assertObject,
  parseActionType,
  parseHash,
  parsePrivacyMode,
  type ActionTypeInput,
} from "../input-validation.js";
import type { QueuedAction } from "./queue-journal.js";

export type RecordInput = Readonly<{
  actionType: ActionTypeInput;
  /** The action itself: a string is hashed as it is, anything else as its canonical JSON. */
  payload?: unknown;
  /** Or the action's hash, `hashAction(payload)`: 64 hex characters. */
  actionHash?: string;
  /** Store a salted commitment instead of the hash; default false. The salt is in the receipt. */
  privacyMode?: boolean;
}>;

function actionHashOf(input: Record<string, unknown>): string {
  const hasPayload = input.payload !== undefined;
  if (hasPayload === (input.actionHash !== undefined)) {
    throw new AbasError(ABAS_SDK__INVALID_ARGUMENT, {
      argument: "payload | actionHash",
      reason: "give exactly one of payload and actionHash",
    });
  }
  if (!hasPayload) return bytesToHex(parseHash(input.actionHash, "actionHash"));
  const payload = input.payload;
  return hashActionNow(typeof payload === "string" ? payload : canonicalize(payload));
}

/** The action as the queue keeps it, checked; a privacy-mode action gets its salt now, once. */
export function prepareQueuedAction(input: RecordInput, id: number): QueuedAction {
  assertObject(input, "input");
  const actionHash = actionHashOf(input);
  const actionType = parseActionType(input.actionType);
  const privacyMode = parsePrivacyMode(input.privacyMode);
  return {
    id,
    actionHash,
    actionType,
    privacyMode,
    ...(privacyMode ? { salt: bytesToHex(generateSalt()) } : {}),
  };
}
