/** Ed25519 keys made with node:crypto, in the forms the SDK, the ledger and a wallet use. */
import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";

import { encodeBase58 } from "@abas/program-client";

export interface TestKey {
  /** Base58 public key. */
  readonly address: string;
  readonly publicKey: Uint8Array;
  /** Seed then public key: the 64-byte Solana secret key the SDK accepts. */
  readonly secretKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

export function generateTestKey(): TestKey {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const raw = new Uint8Array(publicKey.export({ format: "der", type: "spki" }).subarray(12));
  const seed = new Uint8Array(privateKey.export({ format: "der", type: "pkcs8" }).subarray(16));
  return {
    address: encodeBase58(raw),
    publicKey: raw,
    secretKey: Uint8Array.from([...seed, ...raw]),
    sign: (message) => new Uint8Array(sign(null, message, privateKey as KeyObject)),
  };
}

/** One JSON-RPC call to the ledger. */
export async function ledgerRpc<T>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}
