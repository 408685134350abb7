/**
 * Byte <-> text encodings used on the wire: base58 (addresses, signatures, blockhashes, legacy
 * account data) and base64 (transactions and account data).
 */
import { getBase58Encoder } from "@solana/kit";

const base58Encoder = getBase58Encoder();

const BASE58_ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
/** The output is built in limbs of four base-58 digits: 58^4 * 65,536 stays an exact double. */
const LIMB = 58 ** 4;

/**
 * Base58 by long division, two input bytes at a time into limbs of four base-58 digits: every
 * signature and address the ledger returns goes through here, and this is several times faster
 * than kit's BigInt conversion, which it matches byte for byte (a test compares them).
 */
export function toBase58(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros += 1;
  // Little-endian limbs; an odd first byte goes in alone so the rest come in pairs.
  const limbs: number[] = [];
  for (let i = zeros; i < bytes.length;) {
    const pair = (bytes.length - i) % 2 === 0;
    let carry = pair ? bytes[i]! * 256 + bytes[i + 1]! : bytes[i]!;
    const base = pair ? 65_536 : 256;
    i += pair ? 2 : 1;
    for (let k = 0; k < limbs.length; k += 1) {
      const value = limbs[k]! * base + carry;
      carry = Math.floor(value / LIMB);
      limbs[k] = value - carry * LIMB;
    }
    for (; carry > 0; carry = Math.floor(carry / LIMB)) limbs.push(carry % LIMB);
  }
  let digits = "";
  for (let k = limbs.length - 1; k >= 0; k -= 1) {
    let limb = limbs[k]!;
    let chunk = "";
    for (let d = 0; d < 4; d += 1, limb = Math.floor(limb / 58)) chunk = BASE58_ALPHABET[limb % 58]! + chunk;
    digits += chunk;
  }
  let first = 0;
  while (first < digits.length && digits[first] === "1") first += 1;
  return "1".repeat(zeros) + digits.slice(first);
}

/** Throws on characters outside the base58 alphabet. */
export function fromBase58(text: string): Uint8Array {
  return Uint8Array.from(base58Encoder.encode(text));
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
