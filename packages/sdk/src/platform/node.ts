/**
 * What the SDK needs from its runtime, in Node.js: Solana CLI key files (`~/.config/solana/id.json`)
 * and the Ed25519 public key of a seed, from `node:fs` and `node:crypto`. Chosen by the `#platform`
 * import condition `node`; `web.ts` is the same functions for browsers and other runtimes.
 */
import { createPrivateKey, createPublicKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";

/** A key file's text and the full path it was read from, or why it could not be read. */
export type KeyFileRead =
  | { readonly ok: true; readonly path: string; readonly text: string }
  | { readonly ok: false; readonly reason: string; readonly cause?: unknown };

function expandHome(path: string): string {
  return path === "~" || path.startsWith("~/") ? homedir() + path.slice(1) : path;
}

/** The text of the key file at `path` (`~` is the home directory), or why it cannot be read. */
export function readKeyFile(path: string): KeyFileRead {
  const fullPath = expandHome(path);
  try {
    return { ok: true, path: fullPath, text: readFileSync(fullPath, "utf8") };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    return {
      ok: false,
      reason: `is a key file path that cannot be read (${code}): ${fullPath}`,
      cause: error,
    };
  }
}

// A DER PKCS#8 Ed25519 private key is this prefix then the 32-byte seed (RFC 8410).
const PKCS8_ED25519_PREFIX = Uint8Array.from([
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
]);
const SEED_SIZE = 32;

/** The 32-byte Ed25519 public key of a 32-byte seed, synchronously. */
export function publicKeyOfSeed(seed: Uint8Array): Uint8Array {
  const pkcs8 = new Uint8Array(PKCS8_ED25519_PREFIX.length + SEED_SIZE);
  pkcs8.set(PKCS8_ED25519_PREFIX);
  pkcs8.set(seed, PKCS8_ED25519_PREFIX.length);
  try {
    const privateKey = createPrivateKey({ key: Buffer.from(pkcs8), format: "der", type: "pkcs8" });
    const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
    return new Uint8Array(spki.subarray(spki.length - SEED_SIZE));
  } finally {
    pkcs8.fill(0);
  }
}
