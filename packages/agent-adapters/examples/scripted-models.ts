/**
 * Scripted models that stand in for a provider's: each calls the `weather` and `transfer` tools,
 * then answers: `MockLanguageModelV3` (`ai/test`) and `ScriptedModel` (`@openai/agents/testing`),
 * each SDK's own test model. Nothing leaves the machine: swap in your provider's model in a real
 * agent.
 */
import { Usage, type Model, type ModelResponse } from "@openai/agents";
import { modelResponse, ScriptedModel } from "@openai/agents/testing";
import { MockLanguageModelV3 } from "ai/test";

export const SCRIPTED_ANSWER = "Sunny in Lisbon; the transfer failed.";
export const WEATHER_ARGUMENTS = { city: "Lisbon" };
export const TRANSFER_ARGUMENTS = { amount: 5 };

/** For `generateText`: step 1 calls both tools, step 2 answers. */
export function scriptedAiModel(): MockLanguageModelV3 {
  const usage = {
    inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: 5, reasoning: undefined },
  };
  return new MockLanguageModelV3({
    modelId: "scripted-model",
    doGenerate: [
      {
        content: [
          {
            type: "tool-call",
            toolCallId: "call-1",
            toolName: "weather",
            input: JSON.stringify(WEATHER_ARGUMENTS),
          },
          {
            type: "tool-call",
            toolCallId: "call-2",
            toolName: "transfer",
            input: JSON.stringify(TRANSFER_ARGUMENTS),
          },
        ],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      },
      {
        content: [{ type: "text", text: SCRIPTED_ANSWER }],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      },
    ],
  });
}

/** For an OpenAI Agents SDK `Agent`: response 1 calls both tools, response 2 answers. */
export function scriptedAgentsModel(): Model {
  const usage = () => new Usage({ requests: 1, inputTokens: 12, outputTokens: 5, totalTokens: 17 });
  const responses: ModelResponse[] = [
    {
      usage: usage(),
      responseId: "response-1",
      output: [
        {
          type: "function_call",
          callId: "call-1",
          name: "weather",
          arguments: JSON.stringify(WEATHER_ARGUMENTS),
          status: "completed",
        },
        {
          type: "function_call",
          callId: "call-2",
          name: "transfer",
          arguments: JSON.stringify(TRANSFER_ARGUMENTS),
          status: "completed",
        },
      ],
    },
    {
      usage: usage(),
      responseId: "response-2",
      output: [
        {
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: SCRIPTED_ANSWER }],
        },
      ],
    },
  ];
  // Each response is served to a run that streams too, as its events.
  return new ScriptedModel(responses.map(modelResponse));
}
