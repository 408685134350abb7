/**
 * The Vercel AI SDK (`ai` 6 and 7): `withAbasReceipts(tools, attestor)` wraps each tool's `execute` so
 * every call is recorded as a ToolCall before its result (or error) reaches the model;
 * `abasStepRecorder(attestor, { modelInvocations, decisions })` is an `onStepFinish` that records
 * each model call as a ModelInvocation and what it chose (tools to call, or its answer) as a Decision.
 */
import { ABAS_SDK__INVALID_ARGUMENT, AbasError } from "@abas/errors";
import type { Attestor } from "@abas/sdk/attestor";
import type { StepResult, ToolExecutionOptions, ToolSet } from "ai";

import { ActionRecorder, checkModelRecording, type AdapterOptions } from "./recorded-action.js";

export {
  type AdapterOptions,
  type RecordedActionType,
  type RecordedEntry,
  type ToolCallPayload,
} from "./recorded-action.js";

const TOOL_CALL_KIND = "ai/tool-call";

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === "object" && value !== null && Symbol.asyncIterator in value;
}

/**
 * The same tools, each call recorded with `attestor` before its result returns to the agent.
 * A tool that streams (an async iterable) is recorded with its last value once it ends.
 */
export function withAbasReceipts<TOOLS extends ToolSet>(
  tools: TOOLS,
  attestor: Attestor,
  options: AdapterOptions = {},
): TOOLS {
  const recorder = new ActionRecorder(attestor, options);
  if (tools === null || typeof tools !== "object") {
    throw new AbasError(ABAS_SDK__INVALID_ARGUMENT, {
      argument: "tools",
      reason: "expected an object of tools",
    });
  }
  const wrapped: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute as ((input: unknown, options: ToolExecutionOptions) => unknown) | undefined;
    if (execute === undefined) {
      wrapped[name] = tool; // executed by the caller, not by the agent: nothing happens here to record
      continue;
    }
    wrapped[name] = {
      ...tool,
      execute: (input: unknown, callOptions: ToolExecutionOptions) => {
        const outcome = recorder.runTool(TOOL_CALL_KIND, name, input, async () => {
          const result = await (execute(input, callOptions) as unknown);
          if (!isAsyncIterable(result)) return result;
          let last: unknown;
          for await (const value of result) last = value;
          return last;
        });
        return outcome;
      },
    };
  }
  return wrapped as TOOLS;
}

export type StepRecorderOptions = AdapterOptions &
  Readonly<{
    /** Record each model call (model, finish reason, token usage) as a ModelInvocation. */
    modelInvocations?: boolean;
    /** Record what each model call chose (the tools it called with their arguments, or its text) as a Decision. */
    decisions?: boolean;
  }>;

/** An `onStepFinish` for `generateText` / `streamText` that records the enabled action types. */
export function abasStepRecorder<TOOLS extends ToolSet>(
  attestor: Attestor,
  options: StepRecorderOptions,
): (step: StepResult<TOOLS>) => void {
  const recorder = new ActionRecorder(attestor, options);
  const { modelInvocations, decisions } = checkModelRecording(options);
  return (step) => {
    const model = step.response.modelId;
    if (modelInvocations === true) {
      recorder.record(
        "ModelInvocation",
        {
          kind: "ai/model-invocation",
          model,
          finishReason: step.finishReason,
          usage: {
            inputTokens: step.usage.inputTokens ?? null,
            outputTokens: step.usage.outputTokens ?? null,
          },
          at: step.response.timestamp.toISOString(),
        },
        model,
      );
    }
    if (decisions === true) {
      recorder.record(
        "Decision",
        {
          kind: "ai/decision",
          model,
          toolCalls: step.toolCalls.map((call) => ({ tool: call.toolName, arguments: call.input })),
          text: step.text,
        },
        model,
      );
    }
  };
}
