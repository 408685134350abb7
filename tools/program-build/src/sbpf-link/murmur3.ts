/**
 * MurmurHash3, x86 32-bit variant, seed 0: the hash the SBPF runtime keys its syscalls by. A v3
 * program calls a syscall with `call <murmur3(name)>`; v0's loader writes the same value.
 */

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

const rotateLeft = (value: number, bits: number): number => (value << bits) | (value >>> (32 - bits));

function scramble(block: number): number {
  return Math.imul(rotateLeft(Math.imul(block, C1), 15), C2);
}

export function murmur3(bytes: Uint8Array): number {
  let hash = 0;
  const blockEnd = bytes.length - (bytes.length % 4);
  for (let at = 0; at < blockEnd; at += 4) {
    const block =
      (bytes[at] ?? 0) |
      ((bytes[at + 1] ?? 0) << 8) |
      ((bytes[at + 2] ?? 0) << 16) |
      ((bytes[at + 3] ?? 0) << 24);
    hash ^= scramble(block);
    hash = (Math.imul(rotateLeft(hash, 13), 5) + 0xe6546b64) | 0;
  }
  let tail = 0;
  for (let at = bytes.length - 1; at >= blockEnd; at -= 1) tail = (tail << 8) | (bytes[at] ?? 0);
  if (bytes.length > blockEnd) hash ^= scramble(tail);

  hash ^= bytes.length;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
