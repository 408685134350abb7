/** Base58 (Bitcoin alphabet), as Solana writes addresses and signatures. */
const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const INDEX = new Map([...ALPHABET].map((character, index) => [character, index]));

export function encodeBase58(bytes: Uint8Array): string {
  const digits: number[] = [];
  for (const byte of bytes) {
    let carry = byte;
    for (let i = 0; i < digits.length; i++) {
      carry += digits[i]! << 8;
      digits[i] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  let text = "";
  for (const byte of bytes) {
    if (byte !== 0) break;
    text += "1";
  }
  for (let i = digits.length - 1; i >= 0; i--) text += ALPHABET[digits[i]!];
  return text;
}

/** The bytes of base58 `text`, or undefined when it holds a character outside the alphabet. */
export function decodeBase58(text: string): Uint8Array | undefined {
  const bytes: number[] = [];
  for (const character of text) {
    const value = INDEX.get(character);
    if (value === undefined) return undefined;
    let carry = value;
    for (let i = 0; i < bytes.length; i++) {
      carry += bytes[i]! * 58;
      bytes[i] = carry & 0xff;
      carry >>= 8;
    }
    while (carry > 0) {
      bytes.push(carry & 0xff);
      carry >>= 8;
    }
  }
  for (const character of text) {
    if (character !== "1") break;
    bytes.push(0);
  }
  return Uint8Array.from(bytes.reverse());
}

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
