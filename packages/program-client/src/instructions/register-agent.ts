import type { Address, TransactionSigner } from "@solana/kit";

import { deriveAgentAddress } from "../addresses.js";
import { getRegisterAgentInstruction, getRegisterAgentInstructionDataEncoder } from "../generated/index.js";
import { assertActionTypeMask, assertU8 } from "../validation.js";
import { asAbasInstruction, asProgramDerivedAddress, type AbasInstruction } from "./account-metas.js";

export type RegisterAgentInstructionDataInput = Readonly<{ agentBump: number; allowedActionTypes: number }>;

/** `[1, agent_bump, allowed_action_types]`; values are only checked to fit a byte. */
export function encodeRegisterAgentInstructionData({
  agentBump,
  allowedActionTypes,
}: RegisterAgentInstructionDataInput): Uint8Array {
  assertU8(agentBump, "agentBump");
  assertU8(allowedActionTypes, "allowedActionTypes");
  return Uint8Array.from(
    getRegisterAgentInstructionDataEncoder().encode({ agentAccountBump: agentBump, allowedActionTypes }),
  );
}

export type RegisterAgentInstructionInput = Readonly<{
  programId: Address;
  /** Pays for the agent account and becomes the agent's operator. */
  operator: TransactionSigner;
  /** Signs too: the agent proves it holds its key. */
  agent: TransactionSigner;
  /** Bit mask of the action types the agent may attest (see `actionTypesMask`). */
  allowedActionTypes: number;
}>;

export async function buildRegisterAgentInstruction({
  programId,
  operator,
  agent,
  allowedActionTypes,
}: RegisterAgentInstructionInput): Promise<AbasInstruction> {
  assertActionTypeMask(allowedActionTypes);
  const agentAccount = await deriveAgentAddress(programId, agent.address);
  return asAbasInstruction(
    getRegisterAgentInstruction(
      { operator, agent, agentAccount: asProgramDerivedAddress(agentAccount), allowedActionTypes },
      { programAddress: programId },
    ),
  );
}
