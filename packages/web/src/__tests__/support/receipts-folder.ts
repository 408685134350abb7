/**
 * A receipts folder as `abas-mcp-proxy` leaves it: tool calls recorded by the SDK's Attestor (one
 * batch) on the real ledger, each written with its receipt by the proxy's own `writeReceiptFile`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { writeReceiptFile, type ToolCallAction } from "@abas/mcp-proxy";
import { AttestationClient, type BatchItemReceipt } from "@abas/sdk";
import { Attestor } from "@abas/sdk/attestor";

import { generateTestKey } from "./keys.js";
import type { SeededStack } from "./stack.js";

export interface RecordedToolCall {
  readonly call: ToolCallAction;
  readonly receipt: BatchItemReceipt;
}

let calls = 0;

function toolCall(
  tool: string,
  args: unknown,
  outcome: { result?: unknown; error?: unknown },
): ToolCallAction {
  return {
    kind: "mcp/tools/call",
    tool,
    arguments: args,
    ...outcome,
    // The times make each run's calls distinct actions (a receipts folder has one file per action hash).
    startedAt: new Date().toISOString(),
    endedAt: new Date().toISOString(),
    callId: (calls += 1),
  };
}

/** Three tool calls (one answered with an error) by a newly registered agent, in `folder`. */
export async function recordToolCallsInto(stack: SeededStack, folder: string): Promise<RecordedToolCall[]> {
  const agentKeypair = generateTestKey().secretKey;
  const operatorKeypair = stack.operator.secretKey;
  await new AttestationClient({ rpcUrl: stack.rpcUrl, agentKeypair }).registerAgent({ operatorKeypair });
  const queueDir = mkdtempSync(join(tmpdir(), "abas-web-queue-"));
  const attestor = await Attestor.open({
    client: { rpcUrl: stack.rpcUrl, agentKeypair },
    operatorKeypair,
    queueDir,
    maxBatchDelayMs: 3_600_000,
  });
  try {
    const calls = [
      toolCall("echo", { message: "one" }, { result: { content: [{ type: "text", text: "Echo: one" }] } }),
      toolCall("get-sum", { a: 1, b: 2 }, { result: { content: [{ type: "text", text: "3" }] } }),
      toolCall("no-such-tool", {}, { error: { code: -32602, message: "Unknown tool: no-such-tool" } }),
    ];
    const recorded = calls.map((call) => ({
      call,
      ...attestor.record({ actionType: "ToolCall", payload: call }),
    }));
    await attestor.flush();
    const written: RecordedToolCall[] = [];
    for (const { call, receipt } of recorded) {
      const content = { call, receipt: await receipt };
      await writeReceiptFile(folder, content);
      written.push(content);
    }
    return written;
  } finally {
    await attestor.close();
    rmSync(queueDir, { recursive: true, force: true });
  }
}
