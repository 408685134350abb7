/**
 * Every RPC request of the indexer gives up after this long. Without a limit, one request lost
 * in a network partition (no reset, no answer) would hold the poll forever and nothing would
 * record that the indexer is stuck; with it, the poll fails, `last_error` says why, and it retries.
 */
export const RPC_REQUEST_TIMEOUT_MS = 30_000;

export function rpcRequestOptions(): { abortSignal: AbortSignal } {
  return { abortSignal: AbortSignal.timeout(RPC_REQUEST_TIMEOUT_MS) };
}
