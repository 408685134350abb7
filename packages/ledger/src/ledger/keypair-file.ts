/**
 * Keypairs in the Solana CLI file format: a JSON array of 64 bytes, the 32-byte secret seed then
 * the 32-byte public key.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";

import type { Address } from "@solana/kit";

import { toBase58 } from "../encoding.js";
import { writeFileAtomically } from "../storage/atomic-file.js";

// DER prefixes that wrap a raw Ed25519 key as PKCS#8 / SPKI, the forms node:crypto imports.
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export interface KeypairFile {
  /** The 64 bytes of the file. */
  readonly bytes: Uint8Array;
  readonly address: Address;
  readonly privateKey: KeyObject;
}

export function privateKeyFromSeed(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
}

export function publicKeyFromBytes(publicKey: Uint8Array): KeyObject {
  return createPublicKey({
    key: Buffer.concat([SPKI_ED25519_PREFIX, publicKey]),
    format: "der",
    type: "spki",
  });
}

function fromBytes(bytes: Uint8Array, source: string): KeypairFile {
  if (bytes.length !== 64) throw new Error(`${source} must hold 64 bytes, found ${bytes.length}`);
  const privateKey = privateKeyFromSeed(bytes.subarray(0, 32));
  const derived = createPublicKey(privateKey)
    .export({ format: "der", type: "spki" })
    .subarray(SPKI_ED25519_PREFIX.length);
  if (!derived.equals(bytes.subarray(32)))
    throw new Error(`${source}: the public key does not match the secret key`);
  return { bytes, address: toBase58(bytes.subarray(32)) as Address, privateKey };
}

export function readKeypairFile(path: string): KeypairFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`cannot read the keypair file ${path}: ${(error as Error).message}`, { cause: error });
  }
  if (!Array.isArray(parsed) || !parsed.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)) {
    throw new Error(`${path} is not a keypair file (a JSON array of 64 bytes)`);
  }
  return fromBytes(Uint8Array.from(parsed as number[]), path);
}

export function generateKeypairFile(path: string): KeypairFile {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const seed = privateKey.export({ format: "der", type: "pkcs8" }).subarray(PKCS8_ED25519_PREFIX.length);
  const raw = publicKey.export({ format: "der", type: "spki" }).subarray(SPKI_ED25519_PREFIX.length);
  const bytes = Uint8Array.from([...seed, ...raw]);
  writeFileAtomically(path, [new TextEncoder().encode(`${JSON.stringify(Array.from(bytes))}\n`)]);
  return fromBytes(bytes, path);
}
