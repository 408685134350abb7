import {
  ABAS_SDK__ACCOUNT_DATA_TOO_SHORT,
  ABAS_SDK__INVALID_ACCOUNT_DISCRIMINATOR,
  ABAS_SDK__INVALID_ACCOUNT_SIZE,
  ABAS_SDK__MALFORMED_ACCOUNT_DATA,
  AbasError,
} from "@abas/errors";
import { getAddressDecoder, type Address, type ReadonlyUint8Array } from "@solana/kit";

import { ADDRESS_SIZE } from "../constants.js";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads account data front to back. Every read checks the remaining length first and throws a
 * named AbasError, so malformed or truncated data never causes an out-of-range read.
 */
export class AccountDataReader {
  #offset = 0;
  readonly #bytes: ReadonlyUint8Array;
  readonly #view: DataView;

  constructor(
    bytes: ReadonlyUint8Array,
    readonly accountType: string,
  ) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get offset(): number {
    return this.#offset;
  }

  get length(): number {
    return this.#bytes.length;
  }

  malformed(field: string, reason: string): AbasError {
    return new AbasError(ABAS_SDK__MALFORMED_ACCOUNT_DATA, { accountType: this.accountType, field, reason });
  }

  /** Checks the first byte; called first so a wrong account type is reported as such. */
  expectDiscriminator(expected: number): void {
    const actual = this.u8("discriminator");
    if (actual !== expected) {
      throw new AbasError(ABAS_SDK__INVALID_ACCOUNT_DISCRIMINATOR, {
        accountType: this.accountType,
        expected,
        actual,
      });
    }
  }

  expectSize(expectedSize: number): void {
    if (this.length !== expectedSize) {
      throw new AbasError(ABAS_SDK__INVALID_ACCOUNT_SIZE, {
        accountType: this.accountType,
        expectedSize,
        actualSize: this.length,
      });
    }
  }

  /** Accounts are sized exactly, so bytes left after the last field mean the layout is not ours. */
  expectEnd(): void {
    this.expectSize(this.#offset);
  }

  /** Throws unless `size` more bytes remain; lets callers check a length before allocating for it. */
  expectAvailable(field: string, size: number): void {
    if (this.#offset + size > this.length) {
      throw new AbasError(ABAS_SDK__ACCOUNT_DATA_TOO_SHORT, {
        accountType: this.accountType,
        field,
        requiredSize: this.#offset + size,
        actualSize: this.length,
      });
    }
  }

  #take(field: string, size: number): number {
    this.expectAvailable(field, size);
    const start = this.#offset;
    this.#offset += size;
    return start;
  }

  /** Moves past `size` bytes that the caller does not need. */
  skip(field: string, size: number): void {
    this.#take(field, size);
  }

  u8(field: string): number {
    return this.#view.getUint8(this.#take(field, 1));
  }

  u32(field: string): number {
    return this.#view.getUint32(this.#take(field, 4), true);
  }

  u64(field: string): bigint {
    return this.#view.getBigUint64(this.#take(field, 8), true);
  }

  i64(field: string): bigint {
    return this.#view.getBigInt64(this.#take(field, 8), true);
  }

  /** A Borsh bool: exactly 0 or 1. */
  bool(field: string): boolean {
    const value = this.u8(field);
    if (value > 1) throw this.malformed(field, `expected a bool (0 or 1), got ${value}`);
    return value === 1;
  }

  bytes(field: string, size: number): Uint8Array {
    const start = this.#take(field, size);
    return Uint8Array.from(this.#bytes.subarray(start, start + size));
  }

  address(field: string): Address {
    return getAddressDecoder().decode(this.bytes(field, ADDRESS_SIZE));
  }

  /** A Borsh `Vec<u8>`: u32 length, then the bytes. */
  vec(field: string): Uint8Array {
    return this.bytes(field, this.u32(field));
  }

  /** A `Vec<u8>` whose length the layout fixes (hashes, signatures, keys stored as SAS Vec<u8>). */
  fixedVec(field: string, size: number): Uint8Array {
    const length = this.u32(field);
    if (length !== size) throw this.malformed(field, `expected ${size} bytes, got a length of ${length}`);
    return this.bytes(field, size);
  }

  /** An address that the layout stores as a 32-byte SAS Vec<u8>. */
  addressVec(field: string): Address {
    return getAddressDecoder().decode(this.fixedVec(field, ADDRESS_SIZE));
  }

  /** `size` bytes of UTF-8, which must decode without replacement characters. */
  utf8(field: string, size: number): string {
    const bytes = this.bytes(field, size);
    try {
      return strictUtf8.decode(bytes);
    } catch {
      throw this.malformed(field, "not valid UTF-8");
    }
  }

  /** A Borsh string: u32 length, then UTF-8. */
  string(field: string): string {
    return this.utf8(field, this.u32(field));
  }
}
