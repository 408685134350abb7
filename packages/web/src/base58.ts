/** Checks of base58 text from URLs and forms, on the program client's base58. */
import { decodeBase58 } from "@abas/program-client";

/** A 32-byte public key in base58 (a wallet or agent address), or undefined. */
export function decodeAddress(text: string): Uint8Array | undefined {
  if (text.length < 32 || text.length > 44) return undefined;
  const bytes = decodeBase58(text);
  return bytes?.length === 32 ? bytes : undefined;
}

/** True for the base58 text of a 64-byte transaction signature. */
export function isTransactionSignature(text: string): boolean {
  if (text.length < 64 || text.length > 88) return false;
  return decodeBase58(text)?.length === 64;
}
