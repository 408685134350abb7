/** The few JSON-RPC calls the web app makes itself (verification goes through the SDK). */
export class LedgerRpcError extends Error {
  override readonly name = "LedgerRpcError";
}

const DEFAULT_TIMEOUT_MS = 8_000;

export async function callLedger<T>(
  rpcUrl: string,
  method: string,
  params: unknown[] = [],
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new LedgerRpcError(`the ledger RPC node does not answer ${method}: ${(error as Error).message}`);
  }
  if (!response.ok)
    throw new LedgerRpcError(`the ledger RPC node answered ${method} with HTTP ${response.status}`);
  const body = (await response.json()) as { result?: T; error?: { message?: string } };
  if (body.error !== undefined) {
    throw new LedgerRpcError(
      `the ledger RPC node refused ${method}: ${body.error.message ?? "unknown error"}`,
    );
  }
  return body.result as T;
}
