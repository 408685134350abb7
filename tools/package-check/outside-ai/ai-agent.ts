// An agent on the Vercel AI SDK as `npm install ai` installs it, its tools wrapped by
// @abas/agent-adapters: the SDK's own scripted test model calls a tool that succeeds and one that
// throws, then answers. Type-checked and compiled with tsc, then run with plain node: it prints
// the answer and one line per recorded action with its receipt checked against the ledger.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { abasStepRecorder, withAbasReceipts, type RecordedEntry } from "@abas/agent-adapters/ai";
import { AttestationClient, verifyReceipt } from "@abas/sdk";
import { Attestor } from "@abas/sdk/attestor";
import { createSolanaRpc, generateKeyPairSigner, lamports } from "@solana/kit";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";

const rpcUrl = process.env.RPC_URL ?? "http://127.0.0.1:8899";
const agentKeypair = await generateKeyPairSigner();
const operatorKeypair = await generateKeyPairSigner();
const rpc = createSolanaRpc(rpcUrl);
await rpc.requestAirdrop(operatorKeypair.address, lamports(1_000_000_000n)).send();
while ((await rpc.getBalance(operatorKeypair.address).send()).value === 0n) {
  await new Promise((resolve) => setTimeout(resolve, 200));
}
await new AttestationClient({ rpcUrl, agentKeypair }).registerAgent({
  operatorKeypair,
  allowedActionTypes: ["ToolCall", "Decision"],
});
const queueDir = mkdtempSync(join(tmpdir(), "abas-queue-"));
const attestor = await Attestor.open({ client: { rpcUrl, agentKeypair }, operatorKeypair, queueDir });

const usage = {
  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};
const model = new MockLanguageModelV4({
  doGenerate: [
    {
      content: [
        { type: "tool-call", toolCallId: "call-1", toolName: "weather", input: '{"city":"Lisbon"}' },
        { type: "tool-call", toolCallId: "call-2", toolName: "transfer", input: '{"amount":5}' },
      ],
      finishReason: { unified: "tool-calls", raw: "tool_calls" },
      usage,
      warnings: [],
    },
    {
      content: [{ type: "text", text: "Sunny in Lisbon; the transfer failed." }],
      finishReason: { unified: "stop", raw: "stop" },
      usage,
      warnings: [],
    },
  ],
});

const recorded: RecordedEntry[] = [];
const onRecord = (entry: RecordedEntry): void => void recorded.push(entry);
const { text } = await generateText({
  model,
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
  onStepFinish: abasStepRecorder(attestor, { decisions: true, onRecord }),
});
console.log(`agent: ${text}`);
for (const { actionType, payload, receipt } of recorded) {
  const { valid } = await verifyReceipt(await receipt, { rpcUrl });
  const what = (payload as { tool?: string }).tool ?? (payload as { kind: string }).kind;
  console.log(`${actionType} ${what} ${valid ? "valid" : "INVALID"}`);
}
await attestor.close();
rmSync(queueDir, { recursive: true });
