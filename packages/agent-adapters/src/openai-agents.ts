/**
 * The OpenAI Agents SDK (`@openai/agents` 0.20): `abasTool(attestor)` is the SDK's `tool()` with
 * every execution recorded as a ToolCall before its result (or error) goes back to the run;
 * `withAbasModelReceipts(model, attestor, { modelInvocations, decisions })` is the same `Model`
 * with each response recorded as a ModelInvocation and what it chose (tool calls, or its text) as
 * a Decision.
 */
import { ABAS_SDK__INVALID_ARGUMENT, AbasError } from "@abas/errors";
import type { Attestor } from "@abas/sdk/attestor";
import { tool, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";

import { ActionRecorder, checkModelRecording, type AdapterOptions } from "./recorded-action.js";

export {
  type AdapterOptions,
  type RecordedActionType,
  type RecordedEntry,
  type ToolCallPayload,
} from "./recorded-action.js";

const TOOL_CALL_KIND = "openai-agents/tool-call";

type ExecuteFunction = (input: unknown, ...rest: unknown[]) => unknown;

/** `tool` from `@openai/agents`, with each execution of the tools it makes recorded with `attestor`. */
export function abasTool(attestor: Attestor, options: AdapterOptions = {}): typeof tool {
  const recorder = new ActionRecorder(attestor, options);
  const recordedTool = (toolOptions: Parameters<typeof tool>[0]) => {
    const execute = toolOptions.execute as ExecuteFunction;
    const created = tool({
      ...toolOptions,
      execute: (input: unknown, ...rest: unknown[]) =>
        recorder.runTool(TOOL_CALL_KIND, created.name, input, () => execute(input, ...rest)),
    } as Parameters<typeof tool>[0]);
    return created;
  };
  return recordedTool as typeof tool;
}

export type ModelRecorderOptions = AdapterOptions &
  Readonly<{
    /** Record each model response (response id, token usage) as a ModelInvocation. */
    modelInvocations?: boolean;
    /** Record what each response chose (the tools it called with their arguments, or its text) as a Decision. */
    decisions?: boolean;
  }>;

function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function decisionOf(response: ModelResponse): { toolCalls: unknown[]; text: string } {
  const toolCalls: unknown[] = [];
  let text = "";
  for (const item of response.output) {
    if (item.type === "function_call") {
      toolCalls.push({ tool: item.name, arguments: parsedArguments(item.arguments) });
    } else if (item.type === "message" && item.role === "assistant") {
      for (const part of item.content) if (part.type === "output_text") text += part.text;
    }
  }
  return { toolCalls, text };
}

/** The same model, each response of `getResponse` (a run that does not stream) recorded with `attestor`. */
export function withAbasModelReceipts(
  model: Model,
  attestor: Attestor,
  options: ModelRecorderOptions,
): Model {
  const recorder = new ActionRecorder(attestor, options);
  const { modelInvocations, decisions } = checkModelRecording(options);
  if (model === null || typeof model !== "object" || typeof model.getResponse !== "function") {
    throw new AbasError(ABAS_SDK__INVALID_ARGUMENT, { argument: "model", reason: "expected a Model" });
  }
  const recordResponse = (response: ModelResponse): void => {
    if (modelInvocations === true) {
      recorder.record(
        "ModelInvocation",
        {
          kind: "openai-agents/model-invocation",
          responseId: response.responseId ?? null,
          usage: { inputTokens: response.usage.inputTokens, outputTokens: response.usage.outputTokens },
        },
        "model",
      );
    }
    if (decisions === true) {
      recorder.record("Decision", { kind: "openai-agents/decision", ...decisionOf(response) }, "model");
    }
  };
  return {
    ...(model.supportsPromptModelSelection === undefined
      ? {}
      : { supportsPromptModelSelection: model.supportsPromptModelSelection }),
    ...(model.getRetryAdvice === undefined ? {} : { getRetryAdvice: model.getRetryAdvice.bind(model) }),
    async getResponse(request: ModelRequest): Promise<ModelResponse> {
      const response = await model.getResponse(request);
      recordResponse(response);
      return response;
    },
    // A streamed run is passed through as it is: its responses are not recorded.
    getStreamedResponse: (request: ModelRequest) => model.getStreamedResponse(request),
  };
}
