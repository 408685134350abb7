import { generateKeyPairSync } from "node:crypto";

/** A fresh Solana secret key: 32-byte seed then 32-byte public key, as `solana-keygen` writes it. */
export function newSecretKey(): Uint8Array {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const pkcs8 = privateKey.export({ format: "der", type: "pkcs8" });
  const spki = publicKey.export({ format: "der", type: "spki" });
  const secretKey = new Uint8Array(64);
  secretKey.set(pkcs8.subarray(pkcs8.length - 32), 0);
  secretKey.set(spki.subarray(spki.length - 32), 32);
  return secretKey;
}
