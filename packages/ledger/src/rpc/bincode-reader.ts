/**
 * Bincode's little-endian layout, read field by field for the account parsers of jsonParsed: every
 * read throws a RangeError past the end of the data or on a value the type does not allow, and
 * `parsedOrUndefined` turns that into "no parsed form", as a validator's decoder falls back to
 * base64 when bincode refuses the data.
 */
import { toBase58 } from "../encoding.js";
import type { ParsedAccountData } from "./account-encoding.js";

/** Bincode's little-endian fields, read in order. */
export class BincodeReader {
  private offset = 0;
  private readonly view: DataView;

  constructor(private readonly data: Uint8Array) {
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }

  private take(length: number): number {
    if (this.offset + length > this.data.length) throw new RangeError("the data ends early");
    const at = this.offset;
    this.offset += length;
    return at;
  }

  u8 = (): number => this.data[this.take(1)]!;
  u32 = (): number => this.view.getUint32(this.take(4), true);
  u64 = (): bigint => this.view.getBigUint64(this.take(8), true);
  i64 = (): bigint => this.view.getBigInt64(this.take(8), true);
  f64 = (): number => this.view.getFloat64(this.take(8), true);
  u128 = (): bigint => this.u64() + (this.u64() << 64n);
  /** 32 bytes (a key or a hash) in base58. */
  hash = (): string => toBase58(this.data.subarray(this.take(32), this.offset));
  bool = (): boolean => {
    const byte = this.u8();
    if (byte > 1) throw new RangeError("not a bool");
    return byte === 1;
  };
  /** A bincode Option<Pubkey>: a tag byte, then the key when it is 1. */
  optionalKey = (): string | null => {
    const tag = this.u8();
    if (tag > 1) throw new RangeError("not an option");
    return tag === 1 ? this.hash() : null;
  };
  /** A bincode Vec: its u64 length, then its items. */
  vec = <T>(item: () => T): T[] => {
    const length = this.u64();
    if (length > BigInt(this.data.length - this.offset))
      throw new RangeError("the vector is longer than its data");
    return Array.from({ length: Number(length) }, item);
  };
}

/** The parsed form `read` makes of `data` for `program`, or undefined where bincode refuses the data. */
export function parsedOrUndefined(
  program: ParsedAccountData["program"],
  data: Uint8Array,
  read: (reader: BincodeReader) => ParsedAccountData["parsed"],
): ParsedAccountData | undefined {
  try {
    return { program, parsed: read(new BincodeReader(data)), space: BigInt(data.length) };
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}
