import { ABAS_RUNTIME__RPC_REQUEST_FAILED, AbasError, isAbasError } from "@abas/errors";
import type { PendingRpcRequest } from "@solana/kit";

/** How many causes deep the reason of a failed request reads. */
const MAX_REASON_DEPTH = 4;
/** The most characters of one cause's message the reason keeps: a node chooses some of them. */
const MAX_CAUSE_MESSAGE_LENGTH = 200;
/** Control characters (newlines, escapes): a message goes on one line of a log. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]+/g;
/** A URL's scheme and host, then what may hold a credential: a user and password, a path, a query. */
const URL_PARTS = /\b(https?|wss?):\/\/(?:[^\s/?#@]*@)?([^\s/?#]+)[^\s]*/gi;

/**
 * One cause's message as the reason shows it: on one line, at most MAX_CAUSE_MESSAGE_LENGTH
 * characters, and each URL in it cut to its scheme and host (an RPC URL may carry an API key).
 */
function causeText(message: string): string {
  const text = message
    .replace(URL_PARTS, (_url, scheme: string, host: string) => `${scheme}://${host}/…`)
    .replace(CONTROL_CHARACTERS, " ")
    .trim();
  return text.length > MAX_CAUSE_MESSAGE_LENGTH ? `${text.slice(0, MAX_CAUSE_MESSAGE_LENGTH)}…` : text;
}

/**
 * `ABAS_RUNTIME__RPC_REQUEST_FAILED` for `method`, with `cause` attached and its messages, down its
 * cause chain, as the reason: `fetch failed: connect ECONNREFUSED 127.0.0.1:8899`,
 * `HTTP error (503): Service Unavailable`.
 */
export function rpcRequestFailed(method: string, cause: unknown): AbasError {
  const messages: string[] = [];
  for (let current = cause, depth = 0; depth < MAX_REASON_DEPTH && current !== undefined; depth++) {
    const message = causeText(current instanceof Error ? current.message : String(current));
    if (message !== "" && !messages.includes(message)) messages.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  const reason = messages.length === 0 ? "no reason given" : messages.join(": ");
  return new AbasError(ABAS_RUNTIME__RPC_REQUEST_FAILED, { method, reason, cause });
}

/**
 * Sends one RPC request; a failure of the request itself (node unreachable, HTTP error, JSON-RPC
 * error) becomes `ABAS_RUNTIME__RPC_REQUEST_FAILED` naming the method and why, with the original
 * as cause.
 */
export async function sendRpcRequest<TResponse>(
  method: string,
  request: PendingRpcRequest<TResponse>,
  abortSignal?: AbortSignal,
): Promise<TResponse> {
  try {
    return await request.send(abortSignal === undefined ? undefined : { abortSignal });
  } catch (error) {
    if (isAbasError(error)) throw error;
    throw rpcRequestFailed(method, error);
  }
}
