import { ABAS_RUNTIME__RPC_REQUEST_FAILED, AbasError, isAbasError } from "@abas/errors";
import type { PendingRpcRequest } from "@solana/kit";

/**
 * Sends one RPC request; a failure of the request itself (node unreachable, HTTP error, JSON-RPC
 * error) becomes `ABAS_RUNTIME__RPC_REQUEST_FAILED` naming the method, with the original as cause.
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
    throw new AbasError(ABAS_RUNTIME__RPC_REQUEST_FAILED, { method, cause: error });
  }
}
