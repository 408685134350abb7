/**
 * A Vercel AI SDK agent whose every tool execution is recorded as an ABAS receipt, with its model
 * invocations and decisions. The model is scripted (no API key, nothing leaves the machine).
 *
 *   npm start                                         # the service and its local ledger (another terminal)
 *   npm run example:ai -w @abas/agent-adapters
 *
 * RPC_URL and PROGRAM_ID point it at another ledger and deployment (default: the local ledger's).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { AttestationClient, verifyReceipt } from "@abas/sdk";
import { Attestor } from "@abas/sdk/attestor";
import { generateText, stepCountIs, tool } from "ai";
import { z } from "zod";

import { exampleKeys } from "../../sdk/examples/example-keys.js";
import { abasStepRecorder, withAbasReceipts, type RecordedEntry } from "../src/ai.js";
import { scriptedAiModel } from "./scripted-models.js";

const rpcUrl = process.env.RPC_URL ?? "http://127.0.0.1:8899";
const programId = process.env.PROGRAM_ID;

const { agentKeypair, operatorKeypair } = await exampleKeys(rpcUrl);
await new AttestationClient({ rpcUrl, agentKeypair, programId }).registerAgent({ operatorKeypair });
// A queue folder of its own, removed at the end: an agent keeps its queue folder for good.
const queueDir = mkdtempSync(join(tmpdir(), "abas-queue-"));
const attestor = await Attestor.open({
  client: { rpcUrl, agentKeypair, programId },
  operatorKeypair,
  queueDir,
  maxBatchDelayMs: 500,
});

const recorded: RecordedEntry[] = [];
const onRecord = (entry: RecordedEntry): void => void recorded.push(entry);

const { text } = await generateText({
  model: scriptedAiModel(),
  prompt: "What is the weather in Lisbon? Then send 5.",
  stopWhen: stepCountIs(5),
  tools: withAbasReceipts(
    {
      weather: tool({
        description: "The weather in a city",
        inputSchema: z.object({ city: z.string() }),
        execute: async ({ city }) => ({ city, forecast: "sunny" }),
      }),
      transfer: tool({
        description: "Sends money",
        inputSchema: z.object({ amount: z.number() }),
        execute: async (): Promise<{ sent: number }> => {
          throw new Error("insufficient funds");
        },
      }),
    },
    attestor,
    { onRecord },
  ),
  onStepFinish: abasStepRecorder(attestor, { modelInvocations: true, decisions: true, onRecord }),
});
console.log(`agent: ${text}`);

for (const { actionType, payload, receipt } of recorded) {
  const itemReceipt = await receipt;
  const { valid } = await verifyReceipt(itemReceipt, { rpcUrl, programId });
  const what = (payload as { tool?: string }).tool ?? (payload as { kind: string }).kind;
  console.log(
    `${actionType} ${what}: item ${itemReceipt.index + 1} of ${itemReceipt.itemCount} in batch ${itemReceipt.batchAddress}, ${valid ? "valid" : "INVALID"}`,
  );
}
await attestor.close();
rmSync(queueDir, { recursive: true });
