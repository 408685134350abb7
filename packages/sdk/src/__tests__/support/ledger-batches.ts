/**
 * Every batch an agent has on the ledger, read back over RPC alone (program accounts, then each
 * batch's leaf transactions): what the attestor's tests count to prove nothing is lost or doubled.
 */
import { bytesToHex, decodeBatchAccount } from "@abas/program-client";
import { getBase64Encoder, type Address } from "@solana/kit";

import { fetchBatchLeaves } from "../../batch-leaves.js";
import type { TestLedger } from "./local-ledger.js";

export type LedgerBatchSummary = Readonly<{
  batchAddress: Address;
  merkleRoot: string;
  isComplete: boolean;
  /** The stored hash of every published leaf, in order. */
  storedHashes: string[];
}>;

export async function readAgentBatches(ledger: TestLedger, agent: Address): Promise<LedgerBatchSummary[]> {
  const accounts = await ledger.rpc.getProgramAccounts(ledger.programId, { encoding: "base64" }).send();
  const base64 = getBase64Encoder();
  const batches: LedgerBatchSummary[] = [];
  for (const { pubkey, account } of accounts) {
    let batch;
    try {
      batch = decodeBatchAccount(base64.encode(account.data[0]));
    } catch {
      continue; // not a batch account
    }
    if (batch.signer !== agent) continue;
    const found = await fetchBatchLeaves(ledger.rpc, {
      programId: ledger.programId,
      batchAddress: pubkey,
      commitment: "confirmed",
    });
    batches.push({
      batchAddress: pubkey,
      merkleRoot: bytesToHex(batch.merkleRoot),
      isComplete: batch.isComplete,
      storedHashes: (found?.leaves ?? []).map((leaf) => bytesToHex(leaf.storedHash)),
    });
  }
  return batches;
}

/** How many times each stored hash appears among the leaves of the batches. */
export function countLeaves(batches: readonly LedgerBatchSummary[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const batch of batches)
    for (const hash of batch.storedHashes) counts.set(hash, (counts.get(hash) ?? 0) + 1);
  return counts;
}
