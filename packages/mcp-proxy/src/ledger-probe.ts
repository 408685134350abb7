/**
 * One question to the ledger at start (`getVersion`), so that a ledger that does not answer is
 * named on stderr when the host starts the proxy, not only once a batch has failed its attempts.
 */
import { innermostMessage } from "@abas/errors";

const PROBE_TIMEOUT_MS = 3000;

/** Why the ledger at `rpcUrl` does not answer, or undefined when it does. */
export async function ledgerProblem(
  rpcUrl: string,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<string | undefined> {
  try {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getVersion" }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await response.json().catch(() => undefined)) as { result?: unknown } | undefined;
    if (body?.result !== undefined) return undefined;
    return `HTTP ${response.status}, not a JSON-RPC answer`;
  } catch (error) {
    if (error instanceof Error && error.name === "TimeoutError") return `no answer within ${timeoutMs} ms`;
    return innermostMessage(error);
  }
}
