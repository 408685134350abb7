/**
 * Checks a transaction's signatures the way a validator's RPC does before preflight, so that a
 * bad signature is reported as such (-32003) rather than as a simulation failure.
 */
import { verify } from "node:crypto";

import { fromBase58 } from "../encoding.js";
import { publicKeyFromBytes } from "../ledger/keypair-file.js";
import type { WireTransaction } from "./wire-transaction.js";

export function verifyTransactionSignatures(transaction: WireTransaction): boolean {
  return transaction.signatures.every((signature, index) => {
    const signer = transaction.staticAccountKeys[index];
    if (signer === undefined) return false;
    try {
      return verify(null, transaction.messageBytes, publicKeyFromBytes(fromBase58(signer)), signature);
    } catch {
      return false;
    }
  });
}
