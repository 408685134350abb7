/**
 * The OpenAI Agents SDK (`@openai/agents` 0.20): `abasTool(attestor)` is the SDK's `tool()` with
 * every execution recorded as a ToolCall before its result (or error) goes back to the run;
 * `withAbasModelReceipts(model, attestor, { modelInvocations, decisions })` is the same `Model`
 * with each response recorded as a ModelInvocation and what it chose (tool calls, or its text) as
 * a Decision.
 */
import {
  ABAS_SDK__INVALID_ARGUMENT,
  ABAS_SDK__TOOL_CALL_NOT_RECORDED,
  ABAS_SDK__TOOL_RESULT_NOT_JSON,
  AbasError,
  isAbasError,
} from "@abas/errors";
import type { Attestor } from "@abas/sdk/attestor";
import { tool, type Model, type ModelRequest, type ModelResponse, type StreamEvent } from "@openai/agents";

import { ActionRecorder, checkModelRecording, type AdapterOptions } from "./recorded-action.js";

export {
  type AdapterOptions,
  type RecordedActionType,
  type RecordedEntry,
  type ToolCallPayload,
} from "./recorded-action.js";

const TOOL_CALL_KIND = "openai-agents/tool-call";

/** What a tool's execute gets as its third argument, as far as it is read here. */
type ToolCallDetails = { toolCall?: { callId?: string } } | undefined;
type ExecuteFunction = (input: unknown, context?: unknown, details?: ToolCallDetails) => unknown;

/** The codes of a tool call the adapter refused or could not record. */
const NOT_RECORDED_CODES = [ABAS_SDK__TOOL_CALL_NOT_RECORDED, ABAS_SDK__TOOL_RESULT_NOT_JSON] as const;

/**
 * What the model reads when a tool fails, for a tool without an `errorFunction` or an `outputSchema` of its own: the
 * SDK's default text, except for a call the adapter refused or could not record, which the model
 * reads by its message (whether the tool ran, and why its result is withheld) rather than "Please
 * try again", which would have a tool that already acted run again.
 */
function toolErrorMessage(_context: unknown, error: unknown): string {
  return NOT_RECORDED_CODES.some((code) => isAbasError(error, code))
    ? (error as Error).message
    : "An error occurred while running the tool. Please try again.";
}

/** `tool` from `@openai/agents`, with each execution of the tools it makes recorded with `attestor`. */
export function abasTool(attestor: Attestor, options: AdapterOptions = {}): typeof tool {
  const recorder = new ActionRecorder(attestor, options);
  const recordedTool = (toolOptions: Parameters<typeof tool>[0]) => {
    const execute = toolOptions.execute as ExecuteFunction;
    const created = tool({
      ...toolOptions,
      // tool() names a tool without a name after its execute function: the original's, not this wrapper's.
      name: toolOptions.name || execute.name,
      // (a tool with an outputSchema fails the run instead, as tool() makes it: left as it is)
      ...(toolOptions.errorFunction === undefined && toolOptions.outputSchema === undefined
        ? { errorFunction: toolErrorMessage }
        : {}),
      execute: (input: unknown, context?: unknown, details?: ToolCallDetails) =>
        recorder.runTool(
          { kind: TOOL_CALL_KIND, tool: created.name, input, callId: details?.toolCall?.callId },
          // Called on the options it came in, as tool() calls it.
          () => execute.call(toolOptions, input, context, details),
        ),
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

/** A model response as it is recorded, from `getResponse` or from a stream's `response_done` event. */
type RecordedResponse = Readonly<{
  responseId?: string | undefined;
  usage: Readonly<{ inputTokens: number; outputTokens: number }>;
  output: ModelResponse["output"];
}>;

function decisionOf(response: RecordedResponse): { toolCalls: unknown[]; text: string } {
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

/**
 * The same model, each response recorded with `attestor` before the run sees it: a response of
 * `getResponse`, and a streamed run's response when its `response_done` event comes (the events
 * before it pass through as they come). One that cannot be recorded fails the run with
 * `ABAS_SDK__ACTION_NOT_RECORDED`.
 */
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
  const recordResponse = (response: RecordedResponse): void => {
    if (modelInvocations) {
      recorder.record("ModelInvocation", {
        kind: "openai-agents/model-invocation",
        responseId: response.responseId ?? null,
        usage: { inputTokens: response.usage.inputTokens, outputTokens: response.usage.outputTokens },
      });
    }
    if (decisions) recorder.record("Decision", { kind: "openai-agents/decision", ...decisionOf(response) });
  };
  async function* recordedEvents(events: AsyncIterable<StreamEvent>): AsyncIterable<StreamEvent> {
    for await (const event of events) {
      if (event.type === "response_done") {
        const { id, usage, output } = event.response;
        recordResponse({ responseId: id, usage, output: output as ModelResponse["output"] });
      }
      yield event;
    }
  }
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
    getStreamedResponse: (request: ModelRequest) => recordedEvents(model.getStreamedResponse(request)),
  };
}
