/**
 * SHA-256 in Node.js: `node:crypto`, which hashes a string's UTF-8 without copying it first (see
 * `npm run bench:hash`). Chosen by the `#sha256` import condition `node`; `sha256-web.ts` is the
 * same functions for every other runtime.
 */
import { createHash } from "node:crypto";

import type { ReadonlyUint8Array } from "@solana/kit";

/** SHA-256 of the concatenation of `parts`. */
export function sha256(...parts: ReadonlyUint8Array[]): Uint8Array {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part as Uint8Array);
  return new Uint8Array(hash.digest());
}

/** SHA-256 of the UTF-8 bytes of `text`, as 64 lowercase hex characters. */
export function sha256HexOfText(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
