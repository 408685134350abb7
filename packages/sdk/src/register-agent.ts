import {
  actionTypesFromMask,
  buildRegisterAgentInstruction,
  deriveAgentAddress,
  getActionTypeName,
  type ActionTypeName,
} from "@abas/program-client";
import type { Address } from "@solana/kit";

import type { ClientContext } from "./client-context.js";
import { getTransactionExplorerUrl } from "./explorer-url.js";
import { assertObject, parseAllowedActionTypes, type ActionTypeInput } from "./input-validation.js";
import { prepareKeypair, type KeypairSource } from "./keypair.js";
import { sendAndConfirmTransaction } from "./send-transaction.js";

export type RegisterAgentInput = Readonly<{
  /** Pays for the agent account and becomes the only key that may attest for the agent. */
  operatorKeypair: KeypairSource;
  /** The action types the agent may attest; default all four. */
  allowedActionTypes?: readonly ActionTypeInput[];
}>;

export type AgentTransactionResult = Readonly<{
  txSignature: string;
  explorerUrl: string;
  agent: Address;
  operator: Address;
  /** The agent account: PDA `["agent", agent]`. */
  agentAccountAddress: Address;
  allowedActionTypes: ActionTypeName[];
  slot: number;
}>;

/** Registers the client's agent under an operator; both keys sign (the agent proves it holds its key). */
export async function registerAgent(
  context: ClientContext,
  input: RegisterAgentInput,
): Promise<AgentTransactionResult> {
  assertObject(input, "input");
  const operatorKeypair = prepareKeypair(input.operatorKeypair, "operatorKeypair");
  const allowedActionTypes = parseAllowedActionTypes(input.allowedActionTypes);

  const [operator, agent] = await Promise.all([operatorKeypair.getSigner(), context.agent.getSigner()]);
  const { programId, rpcUrl } = context.settings;
  const instruction = await buildRegisterAgentInstruction({ programId, operator, agent, allowedActionTypes });
  const sent = await sendAndConfirmTransaction(context.sendSettings, {
    feePayer: operator,
    instructions: [instruction],
  });
  return {
    txSignature: sent.signature,
    explorerUrl: getTransactionExplorerUrl(sent.signature, rpcUrl),
    agent: agent.address,
    operator: operator.address,
    agentAccountAddress: (await deriveAgentAddress(programId, agent.address)).address,
    allowedActionTypes: actionTypesFromMask(allowedActionTypes).map(getActionTypeName),
    slot: Number(sent.slot),
  };
}
