/**
 * SHA-256 in browsers and every runtime without `node:crypto`: `@noble/hashes`, synchronous like
 * the Node.js version (`sha256-node.ts`), which the `#sha256` import condition `node` picks instead.
 */
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { ReadonlyUint8Array } from "@solana/kit";

/** SHA-256 of the concatenation of `parts`. */
export function sha256(...parts: ReadonlyUint8Array[]): Uint8Array {
  const hash = nobleSha256.create();
  for (const part of parts) hash.update(part as Uint8Array);
  return hash.digest();
}

/** SHA-256 of the UTF-8 bytes of `text`, as 64 lowercase hex characters. */
export function sha256HexOfText(text: string): string {
  return bytesToHex(nobleSha256(new TextEncoder().encode(text)));
}
