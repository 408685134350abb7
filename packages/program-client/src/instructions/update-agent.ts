import type { Address, TransactionSigner } from "@solana/kit";

import { deriveAgentAddress } from "../addresses.js";
import type { AgentStatus } from "../agent-status.js";
import { getUpdateAgentInstruction, getUpdateAgentInstructionDataEncoder } from "../generated/index.js";
import { assertActionTypeMask, assertAgentStatus, assertU8 } from "../validation.js";
import { asAbasInstruction, type AbasInstruction } from "./account-metas.js";

export type UpdateAgentInstructionDataInput = Readonly<{ status: number; allowedActionTypes: number }>;

/** `[2, status, allowed_action_types]`; values are only checked to fit a byte. */
export function encodeUpdateAgentInstructionData({
  status,
  allowedActionTypes,
}: UpdateAgentInstructionDataInput): Uint8Array {
  assertU8(status, "status");
  assertU8(allowedActionTypes, "allowedActionTypes");
  return Uint8Array.from(getUpdateAgentInstructionDataEncoder().encode({ status, allowedActionTypes }));
}

export type UpdateAgentInstructionInput = Readonly<{
  programId: Address;
  /** The agent's operator; no one else may change it. */
  operator: TransactionSigner;
  agent: Address;
  status: AgentStatus;
  allowedActionTypes: number;
}>;

/** Sets an agent's status and policy. Revoking is final. */
export async function buildUpdateAgentInstruction({
  programId,
  operator,
  agent,
  status,
  allowedActionTypes,
}: UpdateAgentInstructionInput): Promise<AbasInstruction> {
  assertAgentStatus(status);
  assertActionTypeMask(allowedActionTypes);
  const agentAccount = await deriveAgentAddress(programId, agent);
  return asAbasInstruction(
    getUpdateAgentInstruction(
      { operator, agentAccount: agentAccount.address, agent, status, allowedActionTypes },
      { programAddress: programId },
    ),
  );
}
