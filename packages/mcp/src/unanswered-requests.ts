/**
 * The requests a transport has received and not yet answered, so the server can answer every one
 * the host sent before it stops, also when the host closes stdin right after sending them.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

type RequestId = string | number;

const requestId = (message: JSONRPCMessage): RequestId | undefined =>
  "method" in message && "id" in message ? message.id : undefined;

const responseId = (message: JSONRPCMessage): RequestId | undefined =>
  !("method" in message) && "id" in message ? (message.id ?? undefined) : undefined;

/** The request a `notifications/cancelled` gives up: the server sends no answer to it. */
const cancelledId = (message: JSONRPCMessage): RequestId | undefined =>
  "method" in message && message.method === "notifications/cancelled" && !("id" in message)
    ? (message.params as { requestId?: RequestId } | undefined)?.requestId
    : undefined;

/** Call after the server is connected to `transport`: wraps what it receives and sends. */
export function trackUnansweredRequests(transport: Transport): { allAnswered(): Promise<void> } {
  const unanswered = new Set<RequestId>();
  let settled: (() => void) | undefined;
  const answered = (id: RequestId | undefined): void => {
    if (id !== undefined && unanswered.delete(id) && unanswered.size === 0) settled?.();
  };
  const receive = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    const id = requestId(message);
    if (id !== undefined) unanswered.add(id);
    answered(cancelledId(message));
    receive(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    await send(message, options);
    answered(responseId(message));
  };
  return {
    allAnswered() {
      if (unanswered.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => (settled = resolve));
    },
  };
}
