import type { Address, TransactionSigner } from "@solana/kit";

import { deriveAgentAddress } from "../addresses.js";
import { InstructionDiscriminator, SYSTEM_PROGRAM_ADDRESS } from "../constants.js";
import { assertActionTypeMask, assertU8 } from "../validation.js";
import { readonly, readonlySigner, writable, writableSigner, type AbasInstruction } from "./account-metas.js";

export type RegisterAgentInstructionDataInput = Readonly<{ agentBump: number; allowedActionTypes: number }>;

/** `[1, agent_bump, allowed_action_types]`; values are only checked to fit a byte. */
export function encodeRegisterAgentInstructionData({
  agentBump,
  allowedActionTypes,
}: RegisterAgentInstructionDataInput): Uint8Array {
  assertU8(agentBump, "agentBump");
  assertU8(allowedActionTypes, "allowedActionTypes");
  return Uint8Array.of(InstructionDiscriminator.RegisterAgent, agentBump, allowedActionTypes);
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
  return {
    programAddress: programId,
    accounts: [
      writableSigner(operator),
      readonlySigner(agent),
      writable(agentAccount.address),
      readonly(SYSTEM_PROGRAM_ADDRESS),
    ],
    data: encodeRegisterAgentInstructionData({ agentBump: agentAccount.bump, allowedActionTypes }),
  };
}
