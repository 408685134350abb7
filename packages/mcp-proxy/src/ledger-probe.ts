/**
 * One question to the ledger at start (`getVersion`), so that a ledger that does not answer is
 * named on stderr when the host starts the proxy, not only once a batch has failed its attempts.
 */
import { innermostMessage } from "@abas/errors";
import { createSolanaRpc } from "@solana/kit";

const PROBE_TIMEOUT_MS = 3000;

/** Why the ledger at `rpcUrl` does not answer, or undefined when it does. */
export async function ledgerProblem(
  rpcUrl: string,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<string | undefined> {
  try {
    await createSolanaRpc(rpcUrl)
      .getVersion()
      .send({ abortSignal: AbortSignal.timeout(timeoutMs) });
    return undefined;
  } catch (error) {
    if (error instanceof Error && error.name === "TimeoutError") return `no answer within ${timeoutMs} ms`;
    return innermostMessage(error);
  }
}
