/**
 * The SDK's JSON-RPC client: @solana/kit's default transport (its headers, coalescing of identical
 * requests), with a limit on how long one request waits for the node's answer. Without it, a node
 * that takes a request and never answers holds the caller for as long as the HTTP client's own
 * timeouts allow: minutes per request, and an attestor's close waits for every one of them.
 * Each answer is checked for the shape a Solana node gives (rpc-answer.ts).
 */
import {
  createDefaultRpcTransport,
  createSolanaRpcFromTransport,
  type Rpc,
  type RpcTransport,
  type SolanaRpcApi,
} from "@solana/kit";

import { checkRpcAnswer } from "./rpc-answer.js";

/** How long one request waits for an answer unless `requestTimeoutMs` says otherwise. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

class RequestTimeout extends Error {
  override readonly name = "RequestTimeout";
}

export function createTimedSolanaRpc(url: string, timeoutMs: number): Rpc<SolanaRpcApi> {
  const transport = createDefaultRpcTransport({ url });
  const timed: RpcTransport = async <TResponse>(config: Parameters<RpcTransport>[0]): Promise<TResponse> => {
    // A request its caller stopped already is not sent (kit's transport would send it, unstoppable).
    if (config.signal?.aborted === true) throw config.signal.reason;
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new RequestTimeout(`no answer from the node within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    // The caller's own signal stops the request too, with its reason.
    const callerAborted = (): void => controller.abort(config.signal?.reason);
    config.signal?.addEventListener("abort", callerAborted, { once: true });
    try {
      const answer = await transport<TResponse>({ ...config, signal: controller.signal });
      checkRpcAnswer((config.payload as { method?: unknown }).method, answer);
      return answer;
    } catch (error) {
      const reason: unknown = controller.signal.reason;
      throw reason instanceof RequestTimeout ? reason : error;
    } finally {
      clearTimeout(timer);
      config.signal?.removeEventListener("abort", callerAborted);
    }
  };
  return createSolanaRpcFromTransport(timed);
}
