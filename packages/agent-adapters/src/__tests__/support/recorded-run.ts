/**
 * An attestor on a real `abas-ledger` with a registered agent (the MCP proxy tests' set-up), and
 * the checks every adapter test makes on what was recorded.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";

import { AttestationClient, canonicalize, hashActionNow, type BatchItemReceipt } from "@abas/sdk";
import { Attestor } from "@abas/sdk/attestor";

import {
  startLedgerWithAgent,
  type LedgerAndAgent,
} from "../../../../mcp-proxy/src/__tests__/support/ledger-and-agent.js";
import type { RecordedEntry } from "../../recorded-action.js";

export { startLedgerWithAgent, type LedgerAndAgent };
export {
  readReceiptsFolder,
  summarizeReceiptFile,
  verifyReceiptFile,
  writeReceiptFile,
  type KeptAction,
} from "../../../../mcp-proxy/src/receipts-folder.js";

export function openAttestor(setup: LedgerAndAgent): Promise<Attestor> {
  return Attestor.open({
    client: { rpcUrl: setup.rpcUrl, agentKeypair: setup.agentKeypairFile, programId: setup.programId },
    operatorKeypair: setup.operatorKeypairFile,
    queueDir: mkdtempSync(join(setup.workDir, "queue-")),
    durability: "write",
    maxBatchDelayMs: 200,
  });
}

/** Every entry's receipt, once flushed: its hash is the payload's and it verifies on the ledger. */
export async function assertVerifiedReceipts(
  setup: LedgerAndAgent,
  entries: readonly RecordedEntry[],
): Promise<BatchItemReceipt[]> {
  const client = new AttestationClient({
    rpcUrl: setup.rpcUrl,
    agentKeypair: setup.agentKeypairFile,
    programId: setup.programId,
  });
  const receipts: BatchItemReceipt[] = [];
  for (const entry of entries) {
    const receipt = await entry.receipt;
    assert.equal(receipt.actionHash, hashActionNow(canonicalize(entry.payload)));
    assert.equal(entry.actionHash, receipt.actionHash);
    const verification = await client.verifyReceipt(receipt);
    assert.equal(verification.valid, true, JSON.stringify(verification.checks));
    receipts.push(receipt);
  }
  return receipts;
}
