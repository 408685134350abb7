/**
 * The OpenAI Agents SDK adapter in a real `Runner` loop, streamed and not. The model is the SDK's
 * own `ScriptedModel` (`@openai/agents/testing`): it calls two tools (one succeeds, one throws),
 * then answers. Every tool execution gets
 * a receipt that verifies on a real `abas-ledger`. Tracing is off: nothing leaves the machine.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { ABAS_SDK__ACTION_NOT_RECORDED, ABAS_SDK__INVALID_ARGUMENT, isAbasError } from "@abas/errors";
import type { Attestor } from "@abas/sdk/attestor";
import {
  Agent,
  Runner,
  setTraceProcessors,
  setTracingDisabled,
  shellTool,
  tool,
  Usage,
  type Model,
  type ModelResponse,
  type TracingProcessor,
} from "@openai/agents";
import { modelResponse, ScriptedModel } from "@openai/agents/testing";
import { z } from "zod";

import { scriptedAgentsModel } from "../../examples/scripted-models.js";
import { abasTool, withAbasModelReceipts } from "../openai-agents.js";
import type { RecordedEntry } from "../recorded-action.js";
import {
  assertVerifiedReceipts,
  openAttestor,
  startLedgerWithAgent,
  type LedgerAndAgent,
} from "./support/recorded-run.js";

setTracingDisabled(true);

function agentTools(
  makeTool: typeof tool,
  weather = async ({ city }: { city: string }): Promise<string> =>
    JSON.stringify({ city, forecast: "sunny", celsius: 21 }),
) {
  return [
    makeTool({
      name: "weather",
      description: "The weather in a city",
      parameters: z.object({ city: z.string() }),
      execute: weather,
    }),
    makeTool({
      name: "transfer",
      description: "Sends money",
      parameters: z.object({ amount: z.number() }),
      execute: async (): Promise<string> => {
        throw new Error("insufficient funds");
      },
    }),
  ];
}

async function runAgent(
  tools: ReturnType<typeof agentTools>,
  model: Model = scriptedAgentsModel(),
  stream = false,
) {
  const agent = new Agent({ name: "assistant", instructions: "Help.", model, tools });
  const prompt = "What is the weather in Lisbon? Then send 5.";
  const runner = new Runner();
  let result;
  if (stream) {
    const streamed = await runner.run(agent, prompt, { stream: true });
    for await (const event of streamed.toStream()) void event;
    await streamed.completed;
    if (streamed.error !== null && streamed.error !== undefined) throw streamed.error;
    result = streamed;
  } else {
    result = await runner.run(agent, prompt);
  }
  return {
    finalOutput: result.finalOutput,
    toolOutputs: result.newItems
      .filter((item) => item.type === "tool_call_output_item")
      .map((item) => (item as { output: unknown }).output),
  };
}

describe("abasTool (@openai/agents)", () => {
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
    // Given the agent's tools made by the adapter's tool()
    const entries: RecordedEntry[] = [];
    const tools = agentTools(abasTool(attestor, { onRecord: (entry) => entries.push(entry) }));
    // When the scripted model calls both tools and answers
    const output = await runAgent(tools);
    // Then the run's output is what it is without the adapter
    assert.deepEqual(output, await runAgent(agentTools(tool)));
    assert.equal(output.finalOutput, "Sunny in Lisbon; the transfer failed.");
    // And each tool execution was recorded once, with its result or its error
    const payloads = entries.map((entry) => ({
      actionType: entry.actionType,
      ...(entry.payload as { tool: string }),
      startedAt: undefined,
      endedAt: undefined,
    }));
    assert.deepEqual(
      payloads.sort((a, b) => a.tool.localeCompare(b.tool)),
      [
        {
          actionType: "ToolCall",
          kind: "openai-agents/tool-call",
          tool: "transfer",
          arguments: { amount: 5 },
          error: { name: "Error", message: "insufficient funds" },
          callId: "call-2",
          startedAt: undefined,
          endedAt: undefined,
        },
        {
          actionType: "ToolCall",
          kind: "openai-agents/tool-call",
          tool: "weather",
          arguments: { city: "Lisbon" },
          result: JSON.stringify({ city: "Lisbon", forecast: "sunny", celsius: 21 }),
          callId: "call-1",
          startedAt: undefined,
          endedAt: undefined,
        },
      ],
    );
    // And after flush every one has a receipt whose hash is the payload's and that verifies
    await attestor.flush();
    assert.equal((await assertVerifiedReceipts(setup, entries)).length, 2);
  });

  it("records model invocations and decisions only when enabled", async () => {
    const entries: RecordedEntry[] = [];
    const onRecord = (entry: RecordedEntry): void => void entries.push(entry);
    const model = withAbasModelReceipts(scriptedAgentsModel(), attestor, {
      modelInvocations: true,
      decisions: true,
      onRecord,
    });
    await runAgent(agentTools(abasTool(attestor, { onRecord })), model);
    assert.deepEqual(entries.map((entry) => entry.actionType).sort(), [
      "Decision",
      "Decision",
      "ModelInvocation",
      "ModelInvocation",
      "ToolCall",
      "ToolCall",
    ]);
    assert.deepEqual(
      entries.filter((entry) => entry.actionType !== "ToolCall").map((entry) => entry.payload),
      [
        {
          kind: "openai-agents/model-invocation",
          responseId: "response-1",
          usage: { inputTokens: 12, outputTokens: 5 },
        },
        {
          kind: "openai-agents/decision",
          toolCalls: [
            { tool: "weather", arguments: { city: "Lisbon" } },
            { tool: "transfer", arguments: { amount: 5 } },
          ],
          text: "",
        },
        {
          kind: "openai-agents/model-invocation",
          responseId: "response-2",
          usage: { inputTokens: 12, outputTokens: 5 },
        },
        { kind: "openai-agents/decision", toolCalls: [], text: "Sunny in Lisbon; the transfer failed." },
      ],
    );
    // And a streamed run records the same, from each response's response_done event
    const streamed: RecordedEntry[] = [];
    const streamedModel = withAbasModelReceipts(scriptedAgentsModel(), attestor, {
      modelInvocations: true,
      decisions: true,
      onRecord: (entry) => streamed.push(entry),
    });
    const output = await runAgent(agentTools(tool), streamedModel, true);
    assert.equal(output.finalOutput, "Sunny in Lisbon; the transfer failed.");
    assert.deepEqual(
      streamed.map((entry) => entry.payload),
      entries.filter((entry) => entry.actionType !== "ToolCall").map((entry) => entry.payload),
    );
    // When only model invocations are enabled, no Decision is recorded
    const invocationsOnly: RecordedEntry[] = [];
    await runAgent(
      agentTools(tool),
      withAbasModelReceipts(scriptedAgentsModel(), attestor, {
        modelInvocations: true,
        onRecord: (entry) => invocationsOnly.push(entry),
      }),
    );
    assert.deepEqual(
      invocationsOnly.map((entry) => entry.actionType),
      ["ModelInvocation", "ModelInvocation"],
    );
    await attestor.flush();
    await assertVerifiedReceipts(setup, [...entries, ...streamed, ...invocationsOnly]);
  });

  it("records in a Decision a call of a tool the SDK runs itself (a shell command), without its provider data", async () => {
    // Given a model that has the SDK's shell tool run a command, then answers
    const usage = () => new Usage({ requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 });
    const shellCall = {
      type: "shell_call",
      callId: "s1",
      status: "completed",
      action: { commands: ["rm -rf /srv/data"] },
      providerData: { trace: "x" },
    };
    const responses: ModelResponse[] = [
      { usage: usage(), responseId: "r1", output: [shellCall as unknown as ModelResponse["output"][number]] },
      {
        usage: usage(),
        responseId: "r2",
        output: [
          {
            type: "message",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: "done" }],
          },
        ],
      },
    ];
    const ran: string[] = [];
    const shell = shellTool({
      shell: {
        run: async (action) => {
          ran.push(...action.commands);
          return { output: [{ stdout: "", stderr: "", outcome: { type: "exit", exitCode: 0 } }] };
        },
      },
    });
    const entries: RecordedEntry[] = [];
    const model = withAbasModelReceipts(new ScriptedModel(responses.map(modelResponse)), attestor, {
      decisions: true,
      onRecord: (entry) => entries.push(entry),
    });
    // When the agent runs
    await new Runner().run(
      new Agent({ name: "ops", instructions: "Help.", model, tools: [shell] }),
      "Clean up.",
    );
    // Then the command ran, and the Decision that chose it names it
    assert.deepEqual(ran, ["rm -rf /srv/data"]);
    assert.deepEqual(
      entries.map((entry) => entry.payload),
      [
        {
          kind: "openai-agents/decision",
          toolCalls: [
            {
              type: "shell_call",
              callId: "s1",
              status: "completed",
              action: { commands: ["rm -rf /srv/data"] },
            },
          ],
          text: "",
        },
        { kind: "openai-agents/decision", toolCalls: [], text: "done" },
      ],
    );
  });

  it("fails a run whose model response cannot be recorded with ABAS_SDK__ACTION_NOT_RECORDED", async () => {
    const closed = await openAttestor(setup);
    await closed.close();
    for (const stream of [false, true]) {
      await assert.rejects(
        runAgent(
          agentTools(tool),
          withAbasModelReceipts(scriptedAgentsModel(), closed, { decisions: true }),
          stream,
        ),
        (error: unknown) => isAbasError(error) && error.context.__code === ABAS_SDK__ACTION_NOT_RECORDED,
      );
    }
  });

  it("names a tool without a name after its execute function, as tool() does", async () => {
    const entries: RecordedEntry[] = [];
    const makeTool = abasTool(attestor, { onRecord: (entry) => entries.push(entry) });
    const weather = {
      description: "The weather in a city",
      parameters: z.object({ city: z.string() }),
      execute: async function weather({ city }: { city: string }) {
        return `sunny in ${city}`;
      },
    };
    const transfer = {
      description: "Sends money",
      parameters: z.object({ amount: z.number() }),
      execute: async function transfer({ amount }: { amount: number }) {
        return `sent ${amount}`;
      },
    };
    const made = [makeTool({ ...weather, name: "" }), makeTool(transfer)];
    assert.deepEqual(
      made.map((each) => each.name),
      [tool(weather).name, tool(transfer).name],
    );
    const output = await runAgent(made);
    assert.equal(output.finalOutput, "Sunny in Lisbon; the transfer failed.");
    assert.deepEqual(
      entries
        .map((entry) => entry.payload as { tool: string; result: unknown })
        .map(({ tool: name, result }) => [name, result])
        .sort(),
      [
        ["transfer", "sent 5"],
        ["weather", "sunny in Lisbon"],
      ],
    );
  });

  it("tells the model, rather than 'Please try again', that a call's result could not be recorded", async () => {
    const entries: RecordedEntry[] = [];
    const makeTool = abasTool(attestor, { onRecord: (entry) => entries.push(entry) });
    // A weather tool whose result is a bigint, which no JSON holds
    const tools = agentTools(makeTool, async () => 10n as unknown as string);
    const { toolOutputs } = await runAgent(tools);
    const texts = toolOutputs.map((output) => JSON.stringify(output));
    assert.ok(
      texts.some((text) => /Tool weather returned a result with no JSON form/.test(text)),
      texts.join("\n"),
    );
    // Another tool's error still reads as the SDK's own default
    assert.ok(
      texts.some((text) => text.includes("An error occurred while running the tool. Please try again.")),
      texts.join("\n"),
    );
    assert.equal(entries.length, 2);
  });

  it("keeps the SDK's redaction of a tool's error in its trace span", async () => {
    // Given a trace processor that collects the error of each span, tracing on for this run only
    const spanErrors: unknown[] = [];
    setTraceProcessors([
      {
        onTraceStart: async () => {},
        onTraceEnd: async () => {},
        onSpanStart: async () => {},
        onSpanEnd: async (span: { error?: { data?: { error?: unknown } } | null }) => {
          if (span.error) spanErrors.push(span.error.data?.error);
        },
        shutdown: async () => {},
        forceFlush: async () => {},
      } as unknown as TracingProcessor,
    ]);
    setTracingDisabled(false);
    try {
      // When the transfer tool throws, with and without the adapter
      await runAgent(agentTools(tool));
      const plain = spanErrors.splice(0);
      await runAgent(agentTools(abasTool(attestor)));
      // Then its span says what the SDK's own tool() says: not the error's text
      assert.deepEqual(spanErrors, plain);
      assert.equal(plain.length, 1);
      assert.doesNotMatch(JSON.stringify(plain), /insufficient funds/);
    } finally {
      setTracingDisabled(true);
      setTraceProcessors([]);
    }
  });

  it("leaves a tool with an outputSchema failing the run with its own error, as tool() makes it", async () => {
    const failing = (makeTool: typeof tool) =>
      makeTool({
        name: "weather",
        description: "The weather in a city",
        parameters: z.object({ city: z.string() }),
        outputSchema: z.object({ forecast: z.string() }),
        execute: async () => {
          throw new Error("db down");
        },
      });
    const failure = async (makeTool: typeof tool) => {
      const agent = new Agent({
        name: "assistant",
        instructions: "Help.",
        model: scriptedAgentsModel(),
        tools: [failing(makeTool), agentTools(makeTool)[1]!],
      });
      try {
        await new Runner().run(agent, "What is the weather in Lisbon?");
      } catch (error) {
        return error as Error;
      }
      return assert.fail("the run fails");
    };
    const plain = await failure(tool);
    const recorded = await failure(abasTool(attestor));
    assert.equal(recorded.name, plain.name);
    assert.match(recorded.message, /db down/);
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
      code(() => abasTool({} as Attestor)),
      ABAS_SDK__INVALID_ARGUMENT,
    );
    assert.equal(
      code(() => abasTool(attestor, { redact: "none" as unknown as () => unknown })),
      ABAS_SDK__INVALID_ARGUMENT,
    );
    assert.equal(
      code(() => withAbasModelReceipts(scriptedAgentsModel(), attestor, {})),
      ABAS_SDK__INVALID_ARGUMENT,
    );
    assert.equal(
      code(() => withAbasModelReceipts({} as Model, attestor, { decisions: true })),
      ABAS_SDK__INVALID_ARGUMENT,
    );
  });
});
