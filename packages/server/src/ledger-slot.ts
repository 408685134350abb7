/** Asks the ledger's JSON-RPC node for its current slot, giving up after a short timeout. */
export type LedgerSlotResult =
  { readonly ok: true; readonly slot: number } | { readonly ok: false; readonly reason: string };

export async function fetchLedgerSlot(rpcUrl: string, timeoutMs: number): Promise<LedgerSlotResult> {
  let response: Response;
  try {
    response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "getSlot",
        params: [{ commitment: "confirmed" }],
      }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    return { ok: false, reason: describeFetchFailure(error, timeoutMs) };
  }
  if (!response.ok) {
    await response.body?.cancel();
    return { ok: false, reason: `HTTP ${response.status}` };
  }
  let reply: { result?: unknown; error?: { code?: unknown } };
  try {
    reply = (await response.json()) as typeof reply;
  } catch {
    return { ok: false, reason: "the answer is not JSON" };
  }
  if (reply.error !== undefined) return { ok: false, reason: `JSON-RPC error ${String(reply.error.code)}` };
  if (typeof reply.result !== "number" || !Number.isSafeInteger(reply.result)) {
    return { ok: false, reason: "the answer holds no slot" };
  }
  return { ok: true, slot: reply.result };
}

/** A reason a user can act on, without the URL (the health route is public). */
function describeFetchFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return `no answer within ${timeoutMs} ms`;
  }
  // Undici wraps the socket error; with several addresses (IPv4 and IPv6) it is an AggregateError.
  const cause = (error as { cause?: { code?: unknown; errors?: { code?: unknown }[] } })?.cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "host not found";
  if (typeof code === "string") return `network error ${code}`;
  return "network error";
}
