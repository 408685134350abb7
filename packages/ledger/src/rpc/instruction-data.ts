/**
 * What the jsonParsed instruction decoders share: a reader of instruction data that gives up
 * ("not decodable") when the data or the account list is too short for the instruction, in which
 * case the caller shows the instruction partially decoded, as a validator does.
 */
import type { Address } from "@solana/kit";

import { toBase58 } from "../encoding.js";

export interface DecodedInstruction {
  readonly type: string;
  /** Absent for an instruction a validator shows without fields (the Stake program's getMinimumDelegation). */
  readonly info?: Record<string, unknown>;
}

export class NotDecodable extends Error {}

/** Strict UTF-8 that keeps a leading byte-order mark, as Rust's strings do. */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** `bytes` as strict UTF-8 text, or undefined when they are not UTF-8. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Reads instruction data front to back, from `offset` (past the tag); running past its end means "not decodable". */
export class DataReader {
  constructor(
    private readonly data: Uint8Array,
    private offset: number,
  ) {}
  private take(length: number): Uint8Array {
    if (length < 0 || this.offset + length > this.data.length) throw new NotDecodable();
    const bytes = this.data.subarray(this.offset, this.offset + length);
    this.offset += length;
    return bytes;
  }
  remaining(): number {
    return this.data.length - this.offset;
  }
  rest(): Uint8Array {
    return this.take(this.remaining());
  }
  u8(): number {
    return this.take(1)[0]!;
  }
  u16(): number {
    const bytes = this.take(2);
    return bytes[0]! | (bytes[1]! << 8);
  }
  u32(): number {
    const bytes = this.take(4);
    return new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
  }
  i16(): number {
    const bytes = this.take(2);
    return new DataView(bytes.buffer, bytes.byteOffset, 2).getInt16(0, true);
  }
  u64(): bigint {
    const bytes = this.take(8);
    return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigUint64(0, true);
  }
  i64(): bigint {
    const bytes = this.take(8);
    return new DataView(bytes.buffer, bytes.byteOffset, 8).getBigInt64(0, true);
  }
  f64(): number {
    const bytes = this.take(8);
    return new DataView(bytes.buffer, bytes.byteOffset, 8).getFloat64(0, true);
  }
  key(): Address {
    return toBase58(this.take(32)) as Address;
  }
  /** A one-byte bool (bincode and Borsh alike): 0 or 1. */
  bool(): boolean {
    const byte = this.u8();
    if (byte > 1) throw new NotDecodable();
    return byte === 1;
  }
  /** An option (a COption<Pubkey>, a bincode or Borsh Option): a 0 or 1 byte, then `read` when it is 1. */
  option<T>(read: () => T): T | null {
    return this.bool() ? read() : null;
  }
  /** A COption<Pubkey> in instruction data: 0, or 1 and the key. */
  optionalKey(): Address | null {
    return this.option(() => this.key());
  }
  /** An OptionalNonZeroPubkey (Token-2022's fixed-size instruction data): 32 bytes, all zero for none. */
  nonZeroKey(): Address | null {
    const bytes = this.take(32);
    return bytes.every((byte) => byte === 0) ? null : (toBase58(bytes) as Address);
  }
  /** Past the end: fixed-size instruction data must be exactly as long as its fields. */
  end(): void {
    if (this.remaining() !== 0) throw new NotDecodable();
  }
  /** A bincode Vec of keys: its length as a u64, then 32 bytes each. */
  keys(): Address[] {
    const count = this.u64();
    if (count > BigInt(Math.floor(this.remaining() / 32))) throw new NotDecodable();
    return Array.from({ length: Number(count) }, () => this.key());
  }
  /** A bincode string: its byte length as a u64, then UTF-8. */
  string(): string {
    return this.utf8(this.u64());
  }
  /** The next `length` bytes. */
  bytes(length: bigint): Uint8Array {
    if (length > BigInt(this.remaining())) throw new NotDecodable();
    return this.take(Number(length));
  }
  /** A Borsh string: its byte length as a u32, then UTF-8. */
  borshString(): string {
    return this.utf8(BigInt(this.u32()));
  }
  /** The rest of the data as UTF-8. */
  restText(): string {
    return this.utf8(BigInt(this.remaining()));
  }
  private utf8(length: bigint): string {
    const text = utf8Text(this.bytes(length));
    if (text === undefined) throw new NotDecodable();
    return text;
  }
}

/** The instruction's accounts by position; a missing one means "not decodable". */
export function accountsOf(accounts: readonly Address[], needed: number) {
  if (accounts.length < needed) throw new NotDecodable();
  return (position: number): Address => accounts[position]!;
}

/** Decodes one instruction's fields from the data past its tag. */
export type InstructionDecoder = (accounts: readonly Address[], data: DataReader) => DecodedInstruction;

/**
 * A bincode instruction (a u32 tag, then its fields) decoded by the decoder of its tag (an enum's
 * variant index), or undefined when no decoder has that tag or the instruction is not decodable.
 */
export function decodeBincodeInstruction(
  decoders: readonly (InstructionDecoder | undefined)[],
  accounts: readonly Address[],
  data: Uint8Array,
): DecodedInstruction | undefined {
  if (data.length < 4) return undefined;
  const decoder = decoders[new DataView(data.buffer, data.byteOffset, 4).getUint32(0, true)];
  return decoder === undefined
    ? undefined
    : decodeOrUndefined(() => decoder(accounts, new DataReader(data, 4)));
}

/** What `decode` returns, or undefined when it found the instruction not decodable. */
export function decodeOrUndefined(decode: () => DecodedInstruction): DecodedInstruction | undefined {
  try {
    return decode();
  } catch (error) {
    if (error instanceof NotDecodable) return undefined;
    throw error;
  }
}
