import type { Address, ReadonlyUint8Array } from "@solana/kit";

import { isAgentStatus, type AgentStatus } from "../agent-status.js";
import { AccountDiscriminator, AGENT_ACCOUNT_SIZE, AGENT_LAYOUT_VERSION } from "../constants.js";
import { AccountDataReader } from "./account-data-reader.js";

export type AgentAccount = Readonly<{
  layoutVersion: number;
  bump: number;
  status: AgentStatus;
  /** Bit mask of the action types the agent may attest, 1..=15. */
  allowedActionTypes: number;
  operator: Address;
  agent: Address;
  registeredAt: bigint;
  registeredSlot: bigint;
  updatedAt: bigint;
  attestationCount: bigint;
  batchCount: bigint;
  batchItemCount: bigint;
  /** 0 when the agent never attested. */
  lastAttestedAt: bigint;
}>;

const RESERVED_SIZE = 3;

export function decodeAgentAccount(data: ReadonlyUint8Array): AgentAccount {
  const reader = new AccountDataReader(data, "Agent");
  reader.expectDiscriminator(AccountDiscriminator.Agent);
  reader.expectSize(AGENT_ACCOUNT_SIZE);

  const layoutVersion = reader.u8("layout_version");
  if (layoutVersion !== AGENT_LAYOUT_VERSION) {
    throw reader.malformed("layout_version", `expected ${AGENT_LAYOUT_VERSION}, got ${layoutVersion}`);
  }
  const bump = reader.u8("bump");
  const status = reader.u8("status");
  if (!isAgentStatus(status)) throw reader.malformed("status", `expected 0, 1 or 2, got ${status}`);
  const allowedActionTypes = reader.u8("allowed_action_types");
  if (allowedActionTypes < 1 || allowedActionTypes > 15) {
    throw reader.malformed("allowed_action_types", `expected a mask in 1..=15, got ${allowedActionTypes}`);
  }
  if (reader.bytes("reserved", RESERVED_SIZE).some((byte) => byte !== 0)) {
    throw reader.malformed("reserved", "expected zero bytes");
  }

  const account: AgentAccount = {
    layoutVersion,
    bump,
    status,
    allowedActionTypes,
    operator: reader.address("operator"),
    agent: reader.address("agent"),
    registeredAt: reader.i64("registered_at"),
    registeredSlot: reader.u64("registered_slot"),
    updatedAt: reader.i64("updated_at"),
    attestationCount: reader.u64("attestation_count"),
    batchCount: reader.u64("batch_count"),
    batchItemCount: reader.u64("batch_item_count"),
    lastAttestedAt: reader.i64("last_attested_at"),
  };
  reader.expectEnd();
  return account;
}
