/**
 * What the SDK needs from its runtime, in browsers and every runtime without `node:` modules: key
 * file paths are refused with a reason that says what to pass instead, and the Ed25519 public key
 * of a seed comes from `@noble/curves`. `node.ts` is the Node.js version.
 */
import { ed25519 } from "@noble/curves/ed25519.js";

import type { KeyFileRead } from "./node.js";

export function readKeyFile(path: string): KeyFileRead {
  return {
    ok: false,
    reason: `is a key file path (${path}), and key files are read only in Node.js; pass the secret key bytes, a base58 secret key or a KeyPairSigner`,
  };
}

/** The 32-byte Ed25519 public key of a 32-byte seed, synchronously. */
export function publicKeyOfSeed(seed: Uint8Array): Uint8Array {
  return ed25519.getPublicKey(seed);
}
