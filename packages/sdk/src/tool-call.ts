/**
 * A tool call as the receipt layer records it, whoever records it: the MCP proxy
 * (`kind: "mcp/tools/call"`, with the JSON-RPC result or error), the agent-framework adapters
 * (`kind` names the framework, an error is what the tool threw), or an agent's own code. Its
 * canonical JSON is the action that is hashed and attested, and a receipts folder keeps it beside
 * its receipt.
 */
export type RecordedToolCall = Readonly<{
  /** Where the call was made. */
  kind: string;
  tool: string;
  arguments: unknown;
  /** The tool's result... */
  result?: unknown;
  /** ...or its error. */
  error?: unknown;
  /** ISO 8601, the recorder's clock. */
  startedAt: string;
  endedAt: string;
  /**
   * The id the call was made under, when there is one (the JSON-RPC request's id): two identical
   * calls in the same millisecond are still two actions, with a receipt each.
   */
  callId?: string | number;
  /**
   * The request's exact JSON text, recorded beside `arguments` when it says more than the value
   * JSON.parse reads (a repeated key, a number with more digits than a 64-bit float keeps): the
   * receipt then covers what was sent, not only one reading of it.
   */
  requestText?: string;
  /** The response's exact JSON text, likewise, beside `result` or `error`. */
  responseText?: string;
}>;
