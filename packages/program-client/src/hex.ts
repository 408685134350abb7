import {
  ABAS_SDK__INVALID_HEX_STRING_CHARACTERS,
  ABAS_SDK__INVALID_HEX_STRING_LENGTH,
  AbasError,
} from "@abas/errors";
import type { ReadonlyUint8Array } from "@solana/kit";

/** Lowercase hex, two characters per byte, no prefix. */
export function bytesToHex(bytes: ReadonlyUint8Array): string {
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * The `byteLength` bytes that `hex` spells. Strict: exactly `2 × byteLength` hex digits (either
 * case), no `0x` prefix, no whitespace; anything else is a named error, never a silent truncation.
 */
export function hexToBytes(hex: string, byteLength: number): Uint8Array {
  if (hex.length !== byteLength * 2) {
    throw new AbasError(ABAS_SDK__INVALID_HEX_STRING_LENGTH, {
      expectedLength: byteLength * 2,
      actualLength: hex.length,
    });
  }
  const invalidPosition = hex.search(/[^0-9a-fA-F]/);
  if (invalidPosition !== -1) {
    throw new AbasError(ABAS_SDK__INVALID_HEX_STRING_CHARACTERS, { position: invalidPosition });
  }
  const bytes = new Uint8Array(byteLength);
  for (let i = 0; i < byteLength; i++) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}
