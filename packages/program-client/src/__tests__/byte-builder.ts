/**
 * Hand-assembles little-endian bytes for the tests, independently of the code under test, so that
 * the decoders are checked against the layouts of docs/program.md and not against themselves.
 */
export class ByteBuilder {
  readonly #parts: number[] = [];

  u8(value: number): this {
    this.#parts.push(value & 0xff);
    return this;
  }

  u32(value: number): this {
    for (let i = 0; i < 4; i++) this.#parts.push((value >>> (8 * i)) & 0xff);
    return this;
  }

  u64(value: bigint): this {
    const unsigned = BigInt.asUintN(64, value);
    for (let i = 0n; i < 8n; i++) this.#parts.push(Number((unsigned >> (8n * i)) & 0xffn));
    return this;
  }

  i64(value: bigint): this {
    return this.u64(value);
  }

  bytes(bytes: ArrayLike<number>): this {
    this.#parts.push(...Array.from(bytes));
    return this;
  }

  /** Borsh Vec<u8> / String: u32 length then the bytes. */
  vec(bytes: ArrayLike<number>): this {
    return this.u32(bytes.length).bytes(bytes);
  }

  string(text: string): this {
    return this.vec(new TextEncoder().encode(text));
  }

  get length(): number {
    return this.#parts.length;
  }

  build(): Uint8Array {
    return Uint8Array.from(this.#parts);
  }
}

export const bytesOf = (length: number, fill: number): Uint8Array => new Uint8Array(length).fill(fill);
export const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);
