import {
  ABAS_PROGRAM__INVALID_ACCOUNT_OWNER,
  ABAS_RUNTIME__AGENT_NOT_REGISTERED,
  AbasError,
  isAbasError,
} from "@abas/errors";
import { decodeAgentAccount, deriveAgentAddress, type AgentAccount } from "@abas/program-client";
import type { Address } from "@solana/kit";

import type { ClientContext } from "./client-context.js";
import { fetchLedgerAccount } from "./ledger-accounts.js";

/** The agent's account and its address, or null when the agent key is not registered. */
export async function fetchAgentAccount(
  context: ClientContext,
  agent: Address,
): Promise<{ address: Address; account: AgentAccount } | null> {
  const { address } = await deriveAgentAddress(context.settings.programId, agent);
  const ledgerAccount = await fetchLedgerAccount(context.rpc, address, context.settings.commitment);
  if (ledgerAccount === null || ledgerAccount.owner !== context.settings.programId) return null;
  return { address, account: decodeAgentAccount(ledgerAccount.data) };
}

/**
 * Runs an operation on a registered agent. The program reports a missing agent account as an
 * account it does not own; when that happens this looks the agent up and, if it is indeed not
 * registered, throws `ABAS_RUNTIME__AGENT_NOT_REGISTERED` instead, which says what to do.
 */
export async function withRegisteredAgent<T>(
  context: ClientContext,
  agent: Address,
  operation: () => Promise<T>,
): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (
      isAbasError(error, ABAS_PROGRAM__INVALID_ACCOUNT_OWNER) &&
      (await fetchAgentAccount(context, agent)) === null
    ) {
      throw new AbasError(ABAS_RUNTIME__AGENT_NOT_REGISTERED, { agent, cause: error });
    }
    throw error;
  }
}
