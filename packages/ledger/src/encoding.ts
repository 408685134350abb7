/**
 * Byte <-> text encodings used on the wire: base58 (addresses, signatures, blockhashes, legacy
 * account data) and base64 (transactions and account data).
 */
import { decodeBase58, encodeBase58 } from "@abas/program-client";

export const toBase58 = encodeBase58;

/** Throws on characters outside the base58 alphabet. */
export function fromBase58(text: string): Uint8Array {
  const bytes = decodeBase58(text);
  if (bytes === undefined) throw new Error("invalid base58 encoding");
  return bytes;
}

/**
 * `items` ordered by the 32 bytes of their addresses, as a validator's sorted account scans list
 * them (base58 text sorts differently: a 43-character address against a 44-character one).
 */
export function sortedByAddressBytes<T>(items: readonly T[], addressOf: (item: T) => string): T[] {
  return items
    .map((item) => ({ item, key: fromBase58(addressOf(item)) }))
    .sort((a, b) => Buffer.compare(a.key, b.key))
    .map(({ item }) => item);
}

export function toBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Throws on text that is not canonical base64 (Buffer.from would silently skip bad characters). */
export function fromBase64(text: string): Uint8Array {
  if (text.length % 4 !== 0 || !BASE64.test(text)) throw new Error("invalid base64 encoding");
  return new Uint8Array(Buffer.from(text, "base64"));
}

export function u64LittleEndian(value: bigint): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, value, true);
  return bytes;
}

export function concatBytes(...parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
