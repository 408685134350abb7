/**
 * The Vercel AI SDK (`ai` 6 and 7): `withAbasReceipts(tools, attestor)` wraps each tool's `execute` so
 * every call is recorded as a ToolCall before its result (or error) reaches the model;
 * `abasStepRecorder(attestor, { modelInvocations, decisions })` is an `onStepFinish` that records
 * each model call as a ModelInvocation and what it chose (tools to call, or its answer) as a Decision.
 */
import { ABAS_SDK__INVALID_ARGUMENT, AbasError } from "@abas/errors";
import type { Attestor } from "@abas/sdk/attestor";
import type { StepResult, ToolExecutionOptions, ToolSet } from "ai";

import {
  ActionRecorder,
  checkModelRecording,
  optionalFunction,
  warnNotRecorded,
  type AdapterOptions,
  type ToolCallRecording,
} from "./recorded-action.js";

export {
  type AdapterOptions,
  type RecordedActionType,
  type RecordedEntry,
  type ToolCallPayload,
} from "./recorded-action.js";

const TOOL_CALL_KIND = "ai/tool-call";

/**
 * The `execute` functions this adapter made: a tool whose `execute` is one of them is recorded
 * already (by the attestor it was first wrapped with), and is kept as it is when wrapped again.
 */
const recordingExecutes = new WeakSet<object>();

type Execute = (input: unknown, options: ToolExecutionOptions) => unknown;

/** The AI SDK's own test of a streaming result (a function with an async iterator streams too). */
function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    value !== null &&
    value !== undefined &&
    typeof (value as Partial<AsyncIterable<unknown>>)[Symbol.asyncIterator] === "function"
  );
}

/**
 * A streaming tool's values passed on as they come (the framework shows all but the last as
 * preliminary results); the call is recorded with the last one once the tool's stream ends, before
 * the framework takes it as the final result.
 */
async function* recordedStream(values: AsyncIterable<unknown>, call: ToolCallRecording) {
  let last: unknown;
  let settled = false;
  try {
    for await (const value of values) {
      last = value;
      yield value;
    }
    settled = true;
    call.finished(last);
  } catch (error) {
    if (!settled) {
      settled = true;
      call.failed(error);
    }
    throw error;
  } finally {
    // The framework stopped reading before the tool's stream ended.
    if (!settled) call.failed(new Error("the tool's results were not read to their end"));
  }
}

/**
 * The same tools, each call recorded with `attestor` before its result returns to the agent. A
 * tool that streams (its `execute` returns an async iterable) passes each value on as it comes and
 * is recorded with its last value once it ends.
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
    const execute = tool.execute as Execute | undefined;
    // A tool without execute is run by the caller, not by the agent: nothing happens here to record.
    if (execute === undefined || recordingExecutes.has(execute)) {
      wrapped[name] = tool;
      continue;
    }
    const recordingExecute = (input: unknown, callOptions: ToolExecutionOptions) => {
      let call: ToolCallRecording;
      try {
        call = recorder.startToolCall({
          kind: TOOL_CALL_KIND,
          tool: name,
          input,
          callId: callOptions?.toolCallId,
        });
      } catch (error) {
        return Promise.reject(error as Error); // refused: reaches the framework as the tool's error
      }
      let output: unknown;
      try {
        // Called on its tool, as the framework calls it.
        output = execute.call(tool, input, callOptions);
      } catch (error) {
        call.failed(error);
        throw error;
      }
      // Returned as it is, not awaited: the framework streams an async iterable's values.
      if (isAsyncIterable(output)) return recordedStream(output, call);
      return call.settled(output);
    };
    recordingExecutes.add(recordingExecute);
    wrapped[name] = { ...tool, execute: recordingExecute };
  }
  return wrapped as TOOLS;
}

export type StepRecorderOptions = AdapterOptions &
  Readonly<{
    /** Record each model call (model, finish reason, token usage) as a ModelInvocation. */
    modelInvocations?: boolean;
    /** Record what each model call chose (the tools it called with their arguments, or its text) as a Decision. */
    decisions?: boolean;
    /**
     * Called with `ABAS_SDK__ACTION_NOT_RECORDED` for an action that could not be recorded: `ai`
     * ignores what `onStepFinish` throws. Default: a process warning (`process.on("warning")`).
     */
    onError?: (error: AbasError) => void;
  }>;

/** An `onStepFinish` for `generateText` / `streamText` that records the enabled action types. */
export function abasStepRecorder<TOOLS extends ToolSet>(
  attestor: Attestor,
  options: StepRecorderOptions,
): (step: StepResult<TOOLS>) => void {
  const recorder = new ActionRecorder(attestor, options);
  const { modelInvocations, decisions } = checkModelRecording(options);
  const onError = optionalFunction<(error: AbasError) => void>(options.onError, "onError") ?? warnNotRecorded;
  const record = (actionType: "ModelInvocation" | "Decision", payload: unknown): void => {
    try {
      recorder.record(actionType, payload);
    } catch (error) {
      onError(error as AbasError);
    }
  };
  return (step) => {
    const model = step.response.modelId;
    if (modelInvocations) {
      record("ModelInvocation", {
        kind: "ai/model-invocation",
        model,
        finishReason: step.finishReason,
        usage: {
          inputTokens: step.usage.inputTokens ?? null,
          outputTokens: step.usage.outputTokens ?? null,
        },
        at: step.response.timestamp.toISOString(),
      });
    }
    if (decisions) {
      record("Decision", {
        kind: "ai/decision",
        model,
        toolCalls: step.toolCalls.map((call) => ({ tool: call.toolName, arguments: call.input })),
        text: step.text,
      });
    }
  };
}
