/** Checks beyond what a JSON schema can say (a base58 text that is really 32 bytes, and so on). */
import { hexToBytes } from "@abas/program-client";
import { isAddress, isSignature, type Address, type Signature } from "@solana/kit";

import { invalidInput } from "./tool-failure.js";

export function parseAddress(value: string, field: string, what = "a public key"): Address {
  if (!isAddress(value)) {
    throw invalidInput(field, `is not ${what}: expected 32 bytes in base58 (32 to 44 characters).`);
  }
  return value;
}

export function parseSignature(value: string, field: string): Signature {
  if (!isSignature(value)) {
    throw invalidInput(
      field,
      "is not a transaction signature: expected 64 bytes in base58 (up to 88 characters).",
    );
  }
  return value;
}

/** 64 hex characters, either case, as bytes. */
export function parseHex32(value: string, field: string, what: string): Uint8Array {
  if (!/^[0-9a-fA-F]{64}$/.test(value)) {
    throw invalidInput(field, `must be 64 hexadecimal characters (${what}).`);
  }
  return hexToBytes(value, 32);
}
