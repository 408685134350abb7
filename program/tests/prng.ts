/**
 * A small seeded PRNG and the keys, hashes and leaves drawn from it, for runs that must repeat
 * exactly: the fuzz test (FUZZ_SEED) and the compute-unit bench (the same addresses, so the same
 * bumps, on two builds of the program).
 */
import type { LeafData } from "@abas/program-client";
import { createKeyPairSignerFromPrivateKeyBytes, type KeyPairSigner } from "@solana/kit";

/** sfc32, seeded through splitmix32: small, fast and good enough to drive a fuzzer. */
export class Prng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number) {
    let state = seed >>> 0;
    const splitmix = () => {
      state = (state + 0x9e3779b9) >>> 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.#a = splitmix();
    this.#b = splitmix();
    this.#c = splitmix();
    this.#d = splitmix();
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.#a + this.#b) >>> 0) + this.#d) >>> 0;
    this.#d = (this.#d + 1) >>> 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) >>> 0;
    this.#c = ((this.#c << 21) | (this.#c >>> 11)) >>> 0;
    this.#c = (this.#c + t) >>> 0;
    return t;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor((this.u32() / 0x1_0000_0000) * n);
  }

  chance(p: number): boolean {
    return this.u32() / 0x1_0000_0000 < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
    return out;
  }
}

export async function signerFrom(prng: Prng): Promise<KeyPairSigner> {
  return await createKeyPairSignerFromPrivateKeyBytes(prng.bytes(32));
}

export function leavesFrom(prng: Prng, count: number): LeafData[] {
  return Array.from({ length: count }, () => ({
    actionType: prng.int(4) as LeafData["actionType"],
    privacyMode: prng.chance(0.5),
    storedHash: prng.bytes(32),
  }));
}
