/**
 * Questions to the ledger at start, so that a ledger that does not answer, or an agent the program
 * at `--program-id` does not know, is named on stderr when the host starts the proxy, not only once
 * a batch has failed its attempts.
 */
import { innermostMessage } from "@abas/errors";
import { AttestationClient, LOCAL_PROGRAM_ID } from "@abas/sdk";
import { createSolanaRpc, type KeyPairSigner } from "@solana/kit";

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

/**
 * Why the agent cannot attest through the program at `programId` on a ledger that answers (it is
 * not registered there: a wrong program id looks the same), or undefined when it can, or when the
 * ledger did not say.
 */
export async function agentProblem(
  rpcUrl: string,
  programId: string | undefined,
  agent: KeyPairSigner,
): Promise<string | undefined> {
  try {
    const client = new AttestationClient({
      rpcUrl,
      agentKeypair: agent,
      ...(programId ? { programId } : {}),
    });
    if ((await client.getAgent()) !== null) return undefined;
  } catch {
    return undefined; // the ledger's own problem: ledgerProblem names it
  }
  return `the agent ${agent.address} is not registered with the ABAS program ${programId ?? LOCAL_PROGRAM_ID} on this ledger: tool calls are kept in the queue and their batches fail until it is; register the agent, or check --program-id (ABAS_PROGRAM_ID)`;
}
