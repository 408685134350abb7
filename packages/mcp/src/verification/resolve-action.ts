/**
 * The hash to look for: the action hash given, or the SDK's `hashAction` of the payload (a string
 * exactly as given; an object or array as RFC 8785 canonical JSON), and in privacy mode the
 * salted commitment the ledger stores instead.
 */
import { isAbasError } from "@abas/errors";
import { bytesToHex, computeCommitment, hexToBytes } from "@abas/program-client";
import { canonicalize, hashAction } from "@abas/sdk";

import { parseHex32 } from "../parse-input.js";
import { invalidInput } from "../tool-failure.js";

export type HashedFrom = "actionHash" | "payload string" | "payload as RFC 8785 canonical JSON";

export type ResolvedAction = Readonly<{
  actionHash: Uint8Array;
  /** What the ledger stores: the action hash, or with a salt its commitment. */
  storedHash: Uint8Array;
  salt: Uint8Array | undefined;
  hashedFrom: HashedFrom;
  /** The exact text that was hashed, for a JSON payload. */
  canonicalPayload: string | null;
}>;

export type ActionInput = Readonly<{
  actionHash?: string | undefined;
  payload?: string | Record<string, unknown> | unknown[] | undefined;
  salt?: string | undefined;
}>;

function reasonOf(error: unknown): string {
  if (isAbasError(error)) {
    const context = error.context as Record<string, unknown>;
    const path = typeof context.path === "string" ? ` at ${context.path}` : "";
    return `${typeof context.reason === "string" ? context.reason : error.message}${path}`;
  }
  return error instanceof Error ? error.message : String(error);
}

export async function resolveAction(input: ActionInput): Promise<ResolvedAction> {
  if ((input.actionHash === undefined) === (input.payload === undefined)) {
    throw invalidInput(
      "actionHash",
      "or `payload`: give exactly one of them: `actionHash` (64 hex characters, the receipt's actionHash) " +
        "or `payload` (the action itself, to be hashed).",
    );
  }
  let actionHash: Uint8Array;
  let hashedFrom: HashedFrom = "actionHash";
  let canonicalPayload: string | null = null;
  if (input.actionHash !== undefined) {
    actionHash = parseHex32(
      input.actionHash,
      "actionHash",
      "the SHA-256 action hash, as hashAction returns it",
    );
  } else {
    let text: string;
    if (typeof input.payload === "string") {
      text = input.payload;
      hashedFrom = "payload string";
    } else {
      try {
        text = canonicalize(input.payload);
      } catch (error) {
        throw invalidInput("payload", `cannot be written as canonical JSON: ${reasonOf(error)}.`);
      }
      hashedFrom = "payload as RFC 8785 canonical JSON";
      canonicalPayload = text;
    }
    try {
      actionHash = hexToBytes(await hashAction(text), 32);
    } catch (error) {
      throw invalidInput("payload", `cannot be hashed: ${reasonOf(error)}.`);
    }
  }
  const salt =
    input.salt === undefined
      ? undefined
      : parseHex32(input.salt, "salt", "the 32-byte salt from the privacy-mode receipt");
  return {
    actionHash,
    storedHash: salt === undefined ? actionHash : computeCommitment(salt, actionHash),
    salt,
    hashedFrom,
    canonicalPayload,
  };
}

export const hex = bytesToHex;
