import { ABAS_SDK__INVALID_ACTION_PAYLOAD, AbasError } from "@abas/errors";
import { sha256HexOfText } from "@abas/program-client";

import { findLoneSurrogate } from "./well-formed-text.js";

/**
 * The action hash of a serialized payload: SHA-256 of its UTF-8 bytes, as 64 lowercase hex
 * characters. The hash is of the exact string: `hashAction(JSON.stringify(x))` changes when the
 * keys of `x` are written in another order, so hash `canonicalize(x)` when the same object must
 * always give the same hash.
 */
export async function hashAction(payload: string): Promise<string> {
  return await Promise.resolve(hashActionNow(payload));
}

/** `hashAction` without the promise, for hot paths that must not yield (the attestor's `record`). */
export function hashActionNow(payload: string): string {
  if (typeof payload !== "string") {
    throw new AbasError(ABAS_SDK__INVALID_ACTION_PAYLOAD, {
      reason: `expected the serialized payload as a string, got ${payload === null ? "null" : typeof payload}`,
    });
  }
  const position = findLoneSurrogate(payload);
  if (position !== -1) {
    throw new AbasError(ABAS_SDK__INVALID_ACTION_PAYLOAD, {
      reason: `the string has a lone UTF-16 surrogate at index ${position}, which has no UTF-8 encoding`,
    });
  }
  // In Node.js, node:crypto hashes the UTF-8 of the string directly: no copy, no thread hop.
  return sha256HexOfText(payload);
}
