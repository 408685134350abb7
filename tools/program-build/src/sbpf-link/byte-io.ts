import { SbpfLinkError } from "./errors.js";

/** Little-endian reads and writes on byte arrays; every read is bounds-checked. */

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function assertInBounds(bytes: Uint8Array, offset: number, length: number): void {
  if (!Number.isInteger(offset) || offset < 0 || offset + length > bytes.length) {
    throw new SbpfLinkError("SBPF_LINK__MALFORMED_OBJECT", {
      reason: `read of ${length} bytes at offset ${offset} is outside the ${bytes.length}-byte buffer`,
    });
  }
}

export function readU8(bytes: Uint8Array, offset: number): number {
  assertInBounds(bytes, offset, 1);
  return viewOf(bytes).getUint8(offset);
}

export function readU16(bytes: Uint8Array, offset: number): number {
  assertInBounds(bytes, offset, 2);
  return viewOf(bytes).getUint16(offset, true);
}

export function readU32(bytes: Uint8Array, offset: number): number {
  assertInBounds(bytes, offset, 4);
  return viewOf(bytes).getUint32(offset, true);
}

export function readI32(bytes: Uint8Array, offset: number): number {
  assertInBounds(bytes, offset, 4);
  return viewOf(bytes).getInt32(offset, true);
}

export function readU64(bytes: Uint8Array, offset: number): bigint {
  assertInBounds(bytes, offset, 8);
  return viewOf(bytes).getBigUint64(offset, true);
}

/** For sizes and offsets: programs are far below 2^53 bytes, so anything larger is corruption. */
export function readU64AsNumber(bytes: Uint8Array, offset: number): number {
  const value = readU64(bytes, offset);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new SbpfLinkError("SBPF_LINK__MALFORMED_OBJECT", {
      reason: `64-bit field at offset ${offset} holds ${value}, larger than any valid size or offset`,
    });
  }
  return Number(value);
}

export function writeU8(bytes: Uint8Array, offset: number, value: number): void {
  viewOf(bytes).setUint8(offset, value);
}

export function writeU16(bytes: Uint8Array, offset: number, value: number): void {
  viewOf(bytes).setUint16(offset, value, true);
}

export function writeU32(bytes: Uint8Array, offset: number, value: number): void {
  viewOf(bytes).setUint32(offset, value, true);
}

export function writeI32(bytes: Uint8Array, offset: number, value: number): void {
  viewOf(bytes).setInt32(offset, value, true);
}

export function writeU64(bytes: Uint8Array, offset: number, value: bigint | number): void {
  viewOf(bytes).setBigUint64(offset, BigInt(value), true);
}

export function alignUp(value: number, alignment: number): number {
  return alignment > 1 ? Math.ceil(value / alignment) * alignment : value;
}

export function readCString(bytes: Uint8Array, offset: number): string {
  assertInBounds(bytes, offset, 0);
  const end = bytes.indexOf(0, offset);
  if (end < 0) {
    throw new SbpfLinkError("SBPF_LINK__MALFORMED_OBJECT", {
      reason: `string at offset ${offset} is not NUL-terminated`,
    });
  }
  return new TextDecoder().decode(bytes.subarray(offset, end));
}
