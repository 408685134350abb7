/**
 * The durable attestor: record every action of an agent on its hot path, get each action's own
 * receipt once its batch is on the ledger.
 *
 *   npm start -w @abas/ledger            # a local ledger on http://127.0.0.1:8899 (another terminal)
 *   npm run example:attestor -w @abas/sdk
 *
 * RPC_URL and PROGRAM_ID point it at another ledger and deployment (default: the local ledger's).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { AttestationClient, verifyReceipt } from "@abas/sdk";
import { Attestor } from "@abas/sdk/attestor";
import { exampleKeys } from "./example-keys.js";

const rpcUrl = process.env.RPC_URL ?? "http://127.0.0.1:8899";
const programId = process.env.PROGRAM_ID;

const { agentKeypair, operatorKeypair } = await exampleKeys(rpcUrl);
await new AttestationClient({ rpcUrl, agentKeypair, programId }).registerAgent({ operatorKeypair });

// One attestor per agent process; its queue directory keeps every recorded action across restarts
// (this example's is new and removed at the end; an agent keeps its own for good).
const queueDir = mkdtempSync(join(tmpdir(), "abas-queue-"));
const attestor = await Attestor.open({
  client: { rpcUrl, agentKeypair, programId },
  operatorKeypair,
  queueDir,
  maxBatchDelayMs: 500,
  onReceipt: (receipt) =>
    console.log(
      `  receipt of item ${receipt.index + 1} of ${receipt.itemCount} in batch ${receipt.batchAddress}`,
    ),
});

// The agent's hot path: record returns at once, the action is already on disk.
const recorded = ["search", "read", "summarise"].map((tool, step) =>
  attestor.record({ actionType: "ToolCall", payload: { tool, step } }),
);
recorded.push(attestor.record({ actionType: "Decision", payload: { answer: "42" }, privacyMode: true }));
console.log(`recorded ${recorded.length} actions`, attestor.metrics);

for (const { actionHash, receipt } of recorded) {
  const itemReceipt = await receipt;
  const { valid } = await verifyReceipt(itemReceipt, { rpcUrl, programId });
  // In privacy mode the ledger holds only a salted commitment; the receipt keeps the salt.
  const privacy = itemReceipt.privacyMode ? " (privacy mode: the ledger holds its salted commitment)" : "";
  console.log(
    `${actionHash} ${itemReceipt.actionType}${privacy}: item ${itemReceipt.index + 1} of ${itemReceipt.itemCount}, ${valid ? "valid" : "INVALID"}`,
  );
}
await attestor.close();
rmSync(queueDir, { recursive: true });
console.log("closed", attestor.metrics);
