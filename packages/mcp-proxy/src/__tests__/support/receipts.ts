import { existsSync, readdirSync } from "node:fs";

import { bytesToHex, decodeBatchAccount } from "@abas/program-client";
import { getBase64Encoder, createSolanaRpc, type Address } from "@solana/kit";

import { readReceiptsFolder, type ReceiptFileEntry } from "../../receipts-folder.js";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the receipts folder holds at least `count` receipts (batches go out every 200 ms in tests). */
export async function waitForReceipts(
  folder: string,
  count: number,
  timeoutMs = 120_000,
): Promise<ReceiptFileEntry[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const files = existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith(".json")) : [];
    if (files.length >= count) {
      const { receipts, unreadable } = readReceiptsFolder(folder);
      if (unreadable.length > 0) throw unreadable[0]!.error;
      return receipts;
    }
    if (Date.now() > deadline)
      throw new Error(`${files.length} receipts in ${folder} after ${timeoutMs} ms, expected ${count}`);
    await sleep(100);
  }
}

/** Every batch the agent has on the ledger: its root and item count, read over RPC. */
export async function agentBatchesOnLedger(
  rpcUrl: string,
  programId: string,
  agent: string,
): Promise<Array<{ merkleRoot: string; itemCount: number; isComplete: boolean }>> {
  const rpc = createSolanaRpc(rpcUrl);
  const accounts = await rpc.getProgramAccounts(programId as Address, { encoding: "base64" }).send();
  const base64 = getBase64Encoder();
  const batches = [];
  for (const { account } of accounts) {
    let batch;
    try {
      batch = decodeBatchAccount(base64.encode(account.data[0]));
    } catch {
      continue; // not a batch account
    }
    if (batch.signer !== agent) continue;
    batches.push({
      merkleRoot: bytesToHex(batch.merkleRoot),
      itemCount: batch.itemCount,
      isComplete: batch.isComplete,
    });
  }
  return batches;
}
