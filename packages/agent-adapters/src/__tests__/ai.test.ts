/**
 * The Vercel AI SDK adapter in a real `generateText` agent loop driven by the SDK's own scripted
 * model (`MockLanguageModelV3` from `ai/test`): the model calls two tools (one succeeds, one
 * throws), then answers. Every tool execution gets a receipt that verifies on a real `abas-ledger`.
 */
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import {
  ABAS_SDK__ACTION_NOT_RECORDED,
  ABAS_SDK__INVALID_ARGUMENT,
  ABAS_SDK__TOOL_CALL_NOT_RECORDED,
  ABAS_SDK__TOOL_RESULT_NOT_JSON,
  isAbasError,
} from "@abas/errors";
import type { Attestor } from "@abas/sdk/attestor";
import { generateText, stepCountIs, streamText, tool, type ToolExecutionOptions, type ToolSet } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test";
import { z } from "zod";

import { scriptedAiModel } from "../../examples/scripted-models.js";
import { abasStepRecorder, withAbasReceipts } from "../ai.js";
import type { RecordedEntry } from "../recorded-action.js";
import {
  assertVerifiedReceipts,
  openAttestor,
  readReceiptsFolder,
  startLedgerWithAgent,
  summarizeReceiptFile,
  verifyReceiptFile,
  writeReceiptFile,
  type KeptAction,
  type LedgerAndAgent,
} from "./support/recorded-run.js";

const callOptions = (toolCallId: string): ToolExecutionOptions => ({ toolCallId, messages: [] });

/** A streaming scripted model that calls `tool` once with a city. */
function scriptedStreamingModel(toolName: string): MockLanguageModelV3 {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  return new MockLanguageModelV3({
    doStream: async () => ({
      stream: convertArrayToReadableStream([
        { type: "tool-call", toolCallId: "call-1", toolName, input: JSON.stringify({ city: "Oslo" }) },
        { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage },
      ] as const),
    }),
  });
}

function agentTools(): ToolSet {
  return {
    weather: tool({
      description: "The weather in a city",
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, forecast: "sunny", celsius: 21 }),
    }),
    transfer: tool({
      description: "Sends money",
      inputSchema: z.object({ amount: z.number() }),
      execute: async (): Promise<{ sent: number }> => {
        throw new Error("insufficient funds");
      },
    }),
  };
}

async function runAgent(tools: ToolSet, onStepFinish?: Parameters<typeof generateText>[0]["onStepFinish"]) {
  const result = await generateText({
    model: scriptedAiModel(),
    tools,
    prompt: "What is the weather in Lisbon? Then send 5.",
    stopWhen: stepCountIs(5),
    ...(onStepFinish === undefined ? {} : { onStepFinish }),
  });
  return {
    text: result.text,
    toolResults: result.steps.flatMap((step) =>
      step.content.filter((part) => part.type === "tool-result" || part.type === "tool-error"),
    ),
  };
}

describe("withAbasReceipts (ai)", () => {
  let setup: LedgerAndAgent;
  let attestor: Attestor;

  before(async () => {
    setup = await startLedgerWithAgent();
    attestor = await openAttestor(setup);
  });
  after(async () => {
    await attestor?.close();
    await setup?.stop();
  });

  it("records both tool executions, the failed one too, with receipts that verify on the ledger", async () => {
    // Given the agent's tools wrapped by the adapter
    const entries: RecordedEntry[] = [];
    const tools = withAbasReceipts(agentTools(), attestor, { onRecord: (entry) => entries.push(entry) });
    // When the scripted model calls both tools and answers
    const output = await runAgent(tools);
    // Then the agent's output is what it is without the adapter
    const plain = await runAgent(agentTools());
    assert.equal(output.text, plain.text);
    assert.deepEqual(
      output.toolResults.map((part) => ({
        ...part,
        ...("error" in part ? { error: String(part.error) } : {}),
      })),
      plain.toolResults.map((part) => ({
        ...part,
        ...("error" in part ? { error: String(part.error) } : {}),
      })),
    );
    // And each tool execution was recorded once, as a ToolCall with its result or its error
    assert.deepEqual(
      entries.map((entry) => entry.actionType),
      ["ToolCall", "ToolCall"],
    );
    const byTool = new Map(entries.map((entry) => [(entry.payload as { tool: string }).tool, entry.payload]));
    assert.deepEqual(
      { ...(byTool.get("weather") as object), startedAt: undefined, endedAt: undefined },
      {
        kind: "ai/tool-call",
        tool: "weather",
        arguments: { city: "Lisbon" },
        result: { city: "Lisbon", forecast: "sunny", celsius: 21 },
        callId: "call-1",
        startedAt: undefined,
        endedAt: undefined,
      },
    );
    assert.deepEqual(
      { ...(byTool.get("transfer") as object), startedAt: undefined, endedAt: undefined },
      {
        kind: "ai/tool-call",
        tool: "transfer",
        arguments: { amount: 5 },
        error: { name: "Error", message: "insufficient funds" },
        callId: "call-2",
        startedAt: undefined,
        endedAt: undefined,
      },
    );
    // And after flush every one has a receipt whose hash is the payload's and that verifies
    await attestor.flush();
    const receipts = await assertVerifiedReceipts(setup, entries);
    assert.equal(receipts.length, 2);
  });

  it("records model invocations and decisions only when enabled", async () => {
    // Given the step recorder with both optional types on, and the tools wrapped
    const entries: RecordedEntry[] = [];
    const onRecord = (entry: RecordedEntry): void => void entries.push(entry);
    const tools = withAbasReceipts(agentTools(), attestor, { onRecord });
    await runAgent(tools, abasStepRecorder(attestor, { modelInvocations: true, decisions: true, onRecord }));
    // Then each of the two model calls is a ModelInvocation and a Decision
    assert.deepEqual(entries.map((entry) => entry.actionType).sort(), [
      "Decision",
      "Decision",
      "ModelInvocation",
      "ModelInvocation",
      "ToolCall",
      "ToolCall",
    ]);
    const decisions = entries
      .filter((entry) => entry.actionType === "Decision")
      .map((entry) => entry.payload);
    assert.deepEqual(decisions, [
      {
        kind: "ai/decision",
        model: "scripted-model",
        toolCalls: [
          { tool: "weather", arguments: { city: "Lisbon" } },
          { tool: "transfer", arguments: { amount: 5 } },
        ],
        text: "",
      },
      {
        kind: "ai/decision",
        model: "scripted-model",
        toolCalls: [],
        text: "Sunny in Lisbon; the transfer failed.",
      },
    ]);
    const invocation = entries.find((entry) => entry.actionType === "ModelInvocation")!.payload as Record<
      string,
      unknown
    >;
    assert.equal(invocation.model, "scripted-model");
    assert.equal(invocation.finishReason, "tool-calls");
    assert.deepEqual(invocation.usage, { inputTokens: 12, outputTokens: 5 });
    // When only decisions are enabled, no ModelInvocation is recorded
    const decisionsOnly: RecordedEntry[] = [];
    await runAgent(
      agentTools(),
      abasStepRecorder(attestor, { decisions: true, onRecord: (entry) => decisionsOnly.push(entry) }),
    );
    assert.deepEqual(
      decisionsOnly.map((entry) => entry.actionType),
      ["Decision", "Decision"],
    );
    await attestor.flush();
    await assertVerifiedReceipts(setup, [...entries, ...decisionsOnly]);
  });

  it("saves each action with its receipt in a receipts folder from onRecord, which abas receipts lists and verifies", async () => {
    // Given an agent whose every action is written to a receipts folder as docs/attest-every-action.md shows
    const folder = mkdtempSync(join(setup.workDir, "receipts-"));
    const saved: Array<Promise<unknown>> = [];
    const onRecord = (entry: RecordedEntry): void =>
      void saved.push(
        entry.receipt.then((receipt) =>
          writeReceiptFile(folder, { call: entry.payload as KeptAction, receipt }),
        ),
      );
    // When it runs with its tools wrapped and its model calls and decisions recorded
    await runAgent(
      withAbasReceipts(agentTools(), attestor, { onRecord }),
      abasStepRecorder(attestor, { modelInvocations: true, decisions: true, onRecord }),
    );
    await attestor.flush();
    await Promise.all(saved);
    // Then the folder lists each action by its tool or, for the others, by its type
    const { receipts, unreadable } = readReceiptsFolder(folder);
    assert.deepEqual(unreadable, []);
    assert.deepEqual(receipts.map((entry) => summarizeReceiptFile(entry).action).sort(), [
      "Decision",
      "Decision",
      "ModelInvocation",
      "ModelInvocation",
      "transfer",
      "weather",
    ]);
    assert.deepEqual(
      receipts.map((entry) => summarizeReceiptFile(entry)).find((row) => row.action === "transfer")?.outcome,
      "error",
    );
    // And every file's action hashes to its receipt's, which verifies on the ledger
    for (const entry of receipts) await verifyReceiptFile(entry, { rpcUrl: setup.rpcUrl });
  });

  it("keeps a redacted payload and privacy mode", async () => {
    const entries: RecordedEntry[] = [];
    const tools = withAbasReceipts(agentTools(), attestor, {
      privacyMode: true,
      redact: (payload) => ({ ...(payload as object), arguments: "redacted" }),
      onRecord: (entry) => entries.push(entry),
    });
    await runAgent(tools);
    assert.deepEqual(
      entries.map((entry) => (entry.payload as { arguments: unknown }).arguments),
      ["redacted", "redacted"],
    );
    await attestor.flush();
    const receipts = await assertVerifiedReceipts(setup, entries);
    assert.ok(receipts.every((receipt) => receipt.privacyMode === true));
  });

  it("names bad input", () => {
    const code = (run: () => unknown): number | undefined => {
      try {
        run();
      } catch (error) {
        return isAbasError(error) ? error.context.__code : undefined;
      }
      return undefined;
    };
    assert.equal(
      code(() => withAbasReceipts(agentTools(), {} as Attestor)),
      ABAS_SDK__INVALID_ARGUMENT,
    );
    assert.equal(
      code(() => withAbasReceipts(null as unknown as ToolSet, attestor)),
      ABAS_SDK__INVALID_ARGUMENT,
    );
    assert.equal(
      code(() => withAbasReceipts(agentTools(), attestor, { privacyMode: "yes" as unknown as boolean })),
      ABAS_SDK__INVALID_ARGUMENT,
    );
    assert.equal(
      code(() => abasStepRecorder(attestor, {})),
      ABAS_SDK__INVALID_ARGUMENT,
    );
  });

  it("refuses, before the tool runs, a call whose arguments have no JSON form or that the attestor cannot take", async () => {
    let runs = 0;
    const counted = () => ({
      pay: tool({
        inputSchema: z.object({ lamports: z.unknown() }),
        execute: async () => ({ paid: ++runs }),
      }),
    });
    // Arguments a schema turned into a bigint: the payment is not made
    await assert.rejects(
      async () => withAbasReceipts(counted(), attestor).pay!.execute!({ lamports: 10n }, callOptions("a")),
      (error: unknown) => isAbasError(error) && error.context.__code === ABAS_SDK__TOOL_CALL_NOT_RECORDED,
    );
    // An attestor closed before the call: nor is it made then
    const closed = await openAttestor(setup);
    const closedTools = withAbasReceipts(counted(), closed);
    await closed.close();
    await assert.rejects(
      async () => closedTools.pay!.execute!({ lamports: 10 }, callOptions("b")),
      (error: unknown) => isAbasError(error) && error.context.__code === ABAS_SDK__TOOL_CALL_NOT_RECORDED,
    );
    assert.equal(runs, 0);
  });

  it("records results in the JSON form the model gets; one with none is recorded as ABAS_SDK__TOOL_RESULT_NOT_JSON", async () => {
    const entries: RecordedEntry[] = [];
    const at = new Date("2026-01-02T03:04:05.000Z");
    const tools = withAbasReceipts(
      {
        weather: tool({
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => ({ city, note: undefined, at, ratio: Number.NaN }),
        }),
        counter: tool({ inputSchema: z.object({}), execute: async () => ({ n: 10n }) }),
      },
      attestor,
      { onRecord: (entry) => entries.push(entry) },
    );
    // The framework gets the result as the tool returned it; the record holds its JSON form
    const result = await tools.weather!.execute!({ city: "Oslo" }, callOptions("w"));
    assert.deepEqual(result, { city: "Oslo", note: undefined, at, ratio: Number.NaN });
    assert.deepEqual((entries[0]!.payload as { result: unknown }).result, {
      city: "Oslo",
      at: "2026-01-02T03:04:05.000Z",
      ratio: null,
    });
    // A bigint has none: the call is recorded with the error the framework gets instead
    await assert.rejects(
      async () => tools.counter!.execute!({}, callOptions("c")),
      (error: unknown) => isAbasError(error) && error.context.__code === ABAS_SDK__TOOL_RESULT_NOT_JSON,
    );
    const refused = entries[1]!.payload as { result?: unknown; error: { name: string; message: string } };
    assert.equal(refused.result, undefined);
    assert.equal(refused.error.name, "AbasError");
    assert.match(refused.error.message, /^Tool counter returned a result with no JSON form/);
    await attestor.flush();
    await assertVerifiedReceipts(setup, entries);
  });

  it("passes a streaming tool's values on as they come and records its last one", async () => {
    const progress = () => ({
      progress: tool({
        inputSchema: z.object({ city: z.string() }),
        async *execute() {
          yield { status: "loading" };
          yield { status: "ready", forecast: "sunny" };
        },
      }),
    });
    const entries: RecordedEntry[] = [];
    const toolResults = async (tools: ToolSet) => {
      const run = streamText({ model: scriptedStreamingModel("progress"), tools, prompt: "Weather?" });
      const parts: unknown[] = [];
      for await (const part of run.fullStream)
        if (part.type === "tool-result") parts.push({ preliminary: part.preliminary, output: part.output });
      return parts;
    };
    const wrapped = await toolResults(
      withAbasReceipts(progress(), attestor, { onRecord: (entry) => entries.push(entry) }),
    );
    assert.deepEqual(wrapped, await toolResults(progress()));
    assert.deepEqual(wrapped, [
      { preliminary: true, output: { status: "loading" } },
      { preliminary: true, output: { status: "ready", forecast: "sunny" } },
      { preliminary: undefined, output: { status: "ready", forecast: "sunny" } },
    ]);
    assert.deepEqual(
      entries.map((entry) => (entry.payload as { result: unknown }).result),
      [{ status: "ready", forecast: "sunny" }],
    );
    // An object with a Symbol.asyncIterator member that is not a function is a final result, as in `ai`
    const notStreaming = () => ({
      progress: tool({
        inputSchema: z.object({ city: z.string() }),
        execute: async () => ({ [Symbol.asyncIterator]: 1, status: "ready" }),
      }),
    });
    assert.deepEqual(
      await toolResults(withAbasReceipts(notStreaming(), attestor)),
      await toolResults(notStreaming()),
    );
    // A function with an async iterator streams, as in `ai` (returned as it is, not from an async function)
    const callableStream = () => ({
      progress: tool({
        inputSchema: z.object({ city: z.string() }),
        execute: (() =>
          Object.assign(() => {}, {
            async *[Symbol.asyncIterator]() {
              yield { status: "loading" };
              yield { status: "transferred", amount: 500 };
            },
          })) as unknown as () => Promise<unknown>,
      }),
    });
    const callable: RecordedEntry[] = [];
    const wrappedCallable = await toolResults(
      withAbasReceipts(callableStream(), attestor, { onRecord: (entry) => callable.push(entry) }),
    );
    assert.deepEqual(wrappedCallable, await toolResults(callableStream()));
    assert.deepEqual(wrappedCallable.at(-1), {
      preliminary: undefined,
      output: { status: "transferred", amount: 500 },
    });
    assert.deepEqual(
      callable.map((entry) => (entry.payload as { result: unknown }).result),
      [{ status: "transferred", amount: 500 }],
    );
  });

  it("calls each tool on itself, records a tool wrapped twice once, and a thrown non-Error in its JSON form", async () => {
    const entries: RecordedEntry[] = [];
    const onRecord = (entry: RecordedEntry): void => void entries.push(entry);
    const greeter = {
      prefix: "Hello, ",
      inputSchema: z.object({ name: z.string() }),
      execute(this: { prefix: string }, { name }: { name: string }) {
        return Promise.resolve(`${this.prefix}${name}`);
      },
    };
    const tools = withAbasReceipts(
      withAbasReceipts(
        {
          greet: tool(greeter),
          fail: tool({
            inputSchema: z.object({}),
            execute: async (): Promise<string> => {
              throw { code: 42 };
            },
          }),
        },
        attestor,
        { onRecord },
      ),
      attestor,
      { onRecord },
    );
    assert.equal(await tools.greet!.execute!({ name: "Ada" }, callOptions("g")), "Hello, Ada");
    await assert.rejects(async () => tools.fail!.execute!({}, callOptions("f")), { code: 42 });
    // A wrapped tool whose execute is replaced (a copy made with spread) is recorded again
    const replaced = withAbasReceipts(
      { greet: { ...tools.greet!, execute: async () => "replaced" } as ToolSet[string] },
      attestor,
      { onRecord },
    );
    assert.equal(await replaced.greet!.execute!({ name: "Ada" }, callOptions("r")), "replaced");
    assert.deepEqual(
      entries
        .map((entry) => entry.payload as { result?: unknown; error?: unknown })
        .map(({ result, error }) => result ?? error),
      ["Hello, Ada", { code: 42 }, "replaced"],
    );
  });

  it("keeps a call recorded, with its result, when onRecord throws: a process warning names it", async () => {
    const warned = new Promise<Error & { code?: string }>((resolve) => process.once("warning", resolve));
    const tools = withAbasReceipts(agentTools(), attestor, {
      onRecord: () => {
        throw new Error("the receipts store is down");
      },
    });
    const result = await tools.weather!.execute!({ city: "Oslo" }, callOptions("o"));
    assert.deepEqual(result, { city: "Oslo", forecast: "sunny", celsius: 21 });
    const warning = await warned;
    assert.equal(warning.code, "ABAS_ON_RECORD_FAILED");
    assert.match(warning.message, /the receipts store is down/);
    // So does a rejected thenable that is not a Promise of this realm
    const warnedAgain = new Promise<Error & { code?: string }>((resolve) => process.once("warning", resolve));
    const thenable = withAbasReceipts(agentTools(), attestor, {
      onRecord: () =>
        ({
          then: (_resolve: unknown, reject: (error: Error) => void) =>
            reject(new Error("a foreign store is down")),
        }) as unknown as void,
    });
    await thenable.weather!.execute!({ city: "Oslo" }, callOptions("t"));
    assert.match((await warnedAgain).message, /a foreign store is down/);
  });

  it("hands a model call or decision it cannot record to onError, by default a process warning", async () => {
    const closed = await openAttestor(setup);
    await closed.close();
    const errors: unknown[] = [];
    await runAgent(
      agentTools(),
      abasStepRecorder(closed, { decisions: true, onError: (error) => errors.push(error) }),
    );
    assert.deepEqual(
      errors.map((error) => isAbasError(error) && error.context.__code),
      [ABAS_SDK__ACTION_NOT_RECORDED, ABAS_SDK__ACTION_NOT_RECORDED],
    );
    const warned = new Promise<Error & { code?: string }>((resolve) => process.once("warning", resolve));
    await runAgent(agentTools(), abasStepRecorder(closed, { modelInvocations: true }));
    const warning = await warned;
    assert.equal(warning.code, "ABAS_SDK__ACTION_NOT_RECORDED");
    assert.match(warning.message, /^The ModelInvocation action could not be recorded/);
  });
});
