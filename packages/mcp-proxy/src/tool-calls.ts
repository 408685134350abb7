/**
 * Pairs each `tools/call` request of the host with the server's response to it, into the
 * action that is recorded: the tool, its arguments, its result or error, and when it started and
 * ended (ISO 8601, the proxy's clock).
 */
import type { RecordedToolCall } from "@abas/sdk";

import { parseMessages } from "./message-lines.js";

export type { RecordedToolCall };

/** A tool call as the proxy records it: `result` is the JSON-RPC result (which may say `isError: true`), `error` the JSON-RPC error. */
export type ToolCallAction = RecordedToolCall & Readonly<{ kind: "mcp/tools/call" }>;

type PendingCall = { tool: string; arguments: unknown; startedAt: string };

const idKey = (id: unknown): string | undefined =>
  typeof id === "string" || typeof id === "number" ? JSON.stringify(id) : undefined;

export class ToolCallTracker {
  readonly #pending = new Map<string, PendingCall>();

  /** Notes the `tools/call` requests in a line the host sent. */
  fromHost(line: Buffer, now = new Date()): void {
    for (const message of parseMessages(line)) {
      if (message.method === "notifications/cancelled") {
        // The server need not answer a cancelled request: nothing to record, nothing to keep.
        const cancelled = idKey((message.params as { requestId?: unknown } | undefined)?.requestId);
        if (cancelled !== undefined) this.#pending.delete(cancelled);
        continue;
      }
      const key = idKey(message.id);
      if (message.method !== "tools/call" || key === undefined) continue;
      const params = (message.params ?? {}) as Record<string, unknown>;
      this.#pending.set(key, {
        tool: typeof params.name === "string" ? params.name : String(params.name),
        arguments: params.arguments ?? {},
        startedAt: now.toISOString(),
      });
    }
  }

  /** The tool calls that a line the server sent completes. */
  fromServer(line: Buffer, now = new Date()): ToolCallAction[] {
    if (this.#pending.size === 0) return [];
    const completed: ToolCallAction[] = [];
    for (const message of parseMessages(line)) {
      const key = idKey(message.id);
      if (key === undefined || "method" in message) continue; // a request of the server's own
      const call = this.#pending.get(key);
      if (call === undefined) continue;
      this.#pending.delete(key);
      completed.push({
        kind: "mcp/tools/call",
        tool: call.tool,
        arguments: call.arguments,
        ...("error" in message ? { error: message.error } : { result: message.result }),
        startedAt: call.startedAt,
        endedAt: now.toISOString(),
      });
    }
    return completed;
  }

  get pendingCount(): number {
    return this.#pending.size;
  }
}
