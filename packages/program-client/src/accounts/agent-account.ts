import type { ReadonlyUint8Array } from "@solana/kit";

import { isAgentStatus, type AgentStatus } from "../agent-status.js";
import { AGENT_ACCOUNT_SIZE, AGENT_LAYOUT_VERSION } from "../constants.js";
import { AGENT_DISCRIMINATOR, getAgentDecoder, getAgentEncoder, type Agent } from "../generated/index.js";
import {
  decodeGeneratedAccount,
  malformedAccountData,
  type GeneratedAccountLayout,
} from "./generated-account.js";

/** An Agent account as the generated decoder reads it, its status one of the domain's `AgentStatus`. */
export type AgentAccount = Readonly<
  Omit<Agent, "discriminator" | "reserved" | "status"> & { status: AgentStatus }
>;

const AGENT_LAYOUT: GeneratedAccountLayout<Agent> = {
  accountType: "Agent",
  discriminator: AGENT_DISCRIMINATOR,
  decoder: getAgentDecoder(),
  encoder: getAgentEncoder(),
  size: AGENT_ACCOUNT_SIZE,
};

const malformed = (field: string, reason: string) =>
  malformedAccountData(AGENT_LAYOUT.accountType, `${field} ${reason}`, field);

/** Decodes with the generated decoder, then checks the values the layout allows. */
export function decodeAgentAccount(data: ReadonlyUint8Array): AgentAccount {
  const {
    discriminator: _discriminator,
    reserved,
    status,
    ...fields
  } = decodeGeneratedAccount(AGENT_LAYOUT, data);
  if (fields.layoutVersion !== AGENT_LAYOUT_VERSION) {
    throw malformed("layout_version", `is ${fields.layoutVersion}, expected ${AGENT_LAYOUT_VERSION}`);
  }
  if (!isAgentStatus(status)) throw malformed("status", `is ${status}, expected 0, 1 or 2`);
  if (fields.allowedActionTypes < 1 || fields.allowedActionTypes > 15) {
    throw malformed("allowed_action_types", `is ${fields.allowedActionTypes}, expected a mask in 1..=15`);
  }
  if (reserved.some((byte) => byte !== 0)) throw malformed("reserved", "has non-zero bytes");
  return { ...fields, status };
}
