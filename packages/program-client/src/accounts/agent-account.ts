import type { ReadonlyUint8Array } from "@solana/kit";

import { isAgentStatus, type AgentStatus } from "../agent-status.js";
import { AccountDiscriminator, AGENT_ACCOUNT_SIZE, AGENT_LAYOUT_VERSION } from "../constants.js";
import { getAgentDecoder, type Agent } from "../generated/index.js";
import { AccountDataReader } from "./account-data-reader.js";

/** An Agent account as the generated decoder reads it, its status one of the domain's `AgentStatus`. */
export type AgentAccount = Readonly<
  Omit<Agent, "discriminator" | "reserved" | "status"> & { status: AgentStatus }
>;

/**
 * Decodes with the generated decoder after the checks that name what is wrong: another account type
 * (first byte), another size, then the values the layout allows.
 */
export function decodeAgentAccount(data: ReadonlyUint8Array): AgentAccount {
  const reader = new AccountDataReader(data, "Agent");
  reader.expectDiscriminator(AccountDiscriminator.Agent);
  reader.expectSize(AGENT_ACCOUNT_SIZE);
  let decoded: Agent;
  try {
    decoded = getAgentDecoder().decode(data);
  } catch {
    // The size is exact, so the only field that can fail to decode is the status enum.
    throw reader.malformed("status", "expected 0, 1 or 2");
  }
  const { discriminator: _discriminator, reserved, status, ...fields } = decoded;
  if (fields.layoutVersion !== AGENT_LAYOUT_VERSION) {
    throw reader.malformed("layout_version", `expected ${AGENT_LAYOUT_VERSION}, got ${fields.layoutVersion}`);
  }
  if (!isAgentStatus(status)) throw reader.malformed("status", `expected 0, 1 or 2, got ${status}`);
  if (fields.allowedActionTypes < 1 || fields.allowedActionTypes > 15) {
    throw reader.malformed(
      "allowed_action_types",
      `expected a mask in 1..=15, got ${fields.allowedActionTypes}`,
    );
  }
  if (reserved.some((byte) => byte !== 0)) throw reader.malformed("reserved", "expected zero bytes");
  return { ...fields, status };
}
