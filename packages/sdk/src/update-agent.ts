import { ABAS_RUNTIME__AGENT_NOT_REGISTERED, AbasError } from "@abas/errors";
import {
  actionTypesFromMask,
  buildUpdateAgentInstruction,
  deriveAgentAddress,
  getActionTypeName,
} from "@abas/program-client";

import { fetchAgentAccount, withRegisteredAgent } from "./agent-registration.js";
import type { ClientContext } from "./client-context.js";
import { getTransactionExplorerUrl } from "./explorer-url.js";
import {
  assertObject,
  getAgentStatusName,
  parseAgentStatus,
  parseAllowedActionTypes,
  type ActionTypeInput,
  type AgentStatusName,
} from "./input-validation.js";
import { prepareKeypair, type KeypairSource } from "./keypair.js";
import type { AgentTransactionResult } from "./register-agent.js";
import { sendAndConfirmTransaction } from "./send-transaction.js";

export type UpdateAgentInput = Readonly<{
  /** The operator that registered the agent; no other key may change it. */
  operatorKeypair: KeypairSource;
  /** `"revoked"` is final. */
  status: AgentStatusName;
  /** The new policy; omitted keeps the current one. */
  allowedActionTypes?: readonly ActionTypeInput[];
}>;

export type UpdateAgentResult = AgentTransactionResult & Readonly<{ status: AgentStatusName }>;

/** Sets the status (and optionally the allowed action types) of the client's agent. */
export async function updateAgent(
  context: ClientContext,
  input: UpdateAgentInput,
): Promise<UpdateAgentResult> {
  assertObject(input, "input");
  const operatorKeypair = prepareKeypair(input.operatorKeypair, "operatorKeypair");
  const status = parseAgentStatus(input.status);
  const requestedPolicy =
    input.allowedActionTypes === undefined ? undefined : parseAllowedActionTypes(input.allowedActionTypes);

  const agent = context.agent.address;
  const { programId, rpcUrl } = context.settings;
  // update_agent always writes both fields, so keeping the policy means reading it first.
  let allowedActionTypes = requestedPolicy;
  if (allowedActionTypes === undefined) {
    const current = await fetchAgentAccount(context, agent);
    if (current === null) throw new AbasError(ABAS_RUNTIME__AGENT_NOT_REGISTERED, { agent });
    allowedActionTypes = current.account.allowedActionTypes;
  }
  const operator = await operatorKeypair.getSigner();
  const instruction = await buildUpdateAgentInstruction({
    programId,
    operator,
    agent,
    status,
    allowedActionTypes,
  });
  const sent = await withRegisteredAgent(context, agent, () =>
    sendAndConfirmTransaction(context.sendSettings, { feePayer: operator, instructions: [instruction] }),
  );
  return {
    txSignature: sent.signature,
    explorerUrl: getTransactionExplorerUrl(sent.signature, rpcUrl),
    agent,
    operator: operator.address,
    agentAccountAddress: (await deriveAgentAddress(programId, agent)).address,
    allowedActionTypes: actionTypesFromMask(allowedActionTypes).map(getActionTypeName),
    status: getAgentStatusName(status),
    slot: Number(sent.slot),
  };
}
