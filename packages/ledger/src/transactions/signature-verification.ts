/**
 * Checks a transaction's signatures the way a validator's RPC does before preflight, so that a
 * bad signature is reported as such (-32003) rather than as a simulation failure.
 */
import { verify, type KeyObject } from "node:crypto";

import { BoundedCache } from "../bounded-cache.js";
import { publicKeyFromBytes } from "../ledger/keypair-file.js";
import type { WireTransaction } from "./wire-transaction.js";

/** The same signers sign transaction after transaction: each public key is imported once. */
const publicKeys = new BoundedCache<string, KeyObject>(16_384);

export function verifyTransactionSignatures(transaction: WireTransaction): boolean {
  return transaction.signatures.every((signature, index) => {
    const signer = transaction.staticAccountKeyBytes[index];
    const address = transaction.staticAccountKeys[index];
    if (signer === undefined || address === undefined) return false;
    try {
      const publicKey = publicKeys.get(address, () => publicKeyFromBytes(signer));
      return verify(null, transaction.messageBytes, publicKey, signature);
    } catch {
      return false;
    }
  });
}
