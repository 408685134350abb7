/** Base58 (the Bitcoin alphabet Solana uses) for random keys and ids; no dependency needed for this. */
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

/** The characters of base58 text, as a regular expression class. */
export const BASE58_CHARACTERS = "1-9A-HJ-NP-Za-km-z";

export function encodeBase58(bytes: Uint8Array): string {
  let leadingZeros = 0;
  while (leadingZeros < bytes.length && bytes[leadingZeros] === 0) leadingZeros++;
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let text = "";
  while (value > 0n) {
    text = ALPHABET[Number(value % 58n)] + text;
    value /= 58n;
  }
  return "1".repeat(leadingZeros) + text;
}
