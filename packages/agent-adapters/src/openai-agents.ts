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

/** `tool` from `@openai/agents`, with each execution of the tools it makes recorded with `attestor`. */
export function abasTool(attestor: Attestor, options: AdapterOptions = {}): typeof tool {
  const recorder = new ActionRecorder(attestor, options);
  const recordedTool = (toolOptions: Parameters<typeof tool>[0]) => {
    const execute = toolOptions.execute as ExecuteFunction;
    // A tool with the SDK's default error handling (no errorFunction, no outputSchema, which fails
    // the run instead) would give the model "Please try again" for a call the adapter refused or
    // could not record, and a tool that already acted would run again: the model reads the error's
    // message instead, as the tool's output. (Every other error keeps the SDK's default, and its
    // redaction in traces.)
    const answersRefusals = toolOptions.errorFunction === undefined && toolOptions.outputSchema === undefined;
    const created = tool({
      ...toolOptions,
      // tool() names a tool without a name after its execute function: the original's, not this wrapper's.
      name: toolOptions.name || execute.name,
      execute: async (input: unknown, context?: unknown, details?: ToolCallDetails) => {
        try {
          return await recorder.runTool(
            { kind: TOOL_CALL_KIND, tool: created.name, input, callId: details?.toolCall?.callId },
            // Called on the options it came in, as tool() calls it.
            () => execute.call(toolOptions, input, context, details),
          );
        } catch (error) {
          if (answersRefusals && NOT_RECORDED_CODES.some((code) => isAbasError(error, code)))
            return (error as Error).message;
          throw error;
        }
      },
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

/** Output items that choose no action: the model's text (read apart) and its reasoning. */
const NOT_CHOICES: ReadonlySet<string | undefined> = new Set(["message", "reasoning", "compaction"]);

/**
 * What a response chose: each function call as its tool and arguments, and every other item that
 * is not text or reasoning (a shell, computer or apply_patch call the SDK runs itself, a hosted
 * tool's call, any kind the SDK adds) as the item itself, without its provider data; and its text.
 */
function decisionOf(response: RecordedResponse): { toolCalls: unknown[]; text: string } {
  const toolCalls: unknown[] = [];
  let text = "";
  for (const item of response.output) {
    if (item.type === "function_call") {
      toolCalls.push({ tool: item.name, arguments: parsedArguments(item.arguments) });
    } else if (item.type === "message" && item.role === "assistant") {
      for (const part of item.content) if (part.type === "output_text") text += part.text;
    } else if (!NOT_CHOICES.has(item.type)) {
      const { providerData: _providerData, ...call } = item as Record<string, unknown>;
      toolCalls.push(call);
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
