import {
  decodeAgentAccount,
  deriveAgentAddress,
  getAgentStatusName,
  type AgentAccount,
} from "@abas/program-client";
import type { Address } from "@solana/kit";

import type { IndexerDatabase } from "../indexer-database.js";
import { requireAccountData, type ApplyContext } from "./apply-context.js";

type AgentStateColumns = Readonly<{
  agent: string;
  address: string;
  operator: string;
  status: "active" | "suspended" | "revoked";
  allowed_action_types: number;
  registered_at: number;
  registered_slot: number;
  updated_at: number;
  attestation_count: number;
  batch_count: number;
  batch_item_count: number;
  last_attested_at: number | null;
  state_slot: number;
}>;

function agentStateColumns(address: Address, account: AgentAccount, stateSlot: bigint): AgentStateColumns {
  return {
    agent: account.agent,
    address,
    operator: account.operator,
    status: getAgentStatusName(account.status).toLowerCase() as AgentStateColumns["status"],
    allowed_action_types: account.allowedActionTypes,
    registered_at: Number(account.registeredAt),
    registered_slot: Number(account.registeredSlot),
    updated_at: Number(account.updatedAt),
    attestation_count: Number(account.attestationCount),
    batch_count: Number(account.batchCount),
    batch_item_count: Number(account.batchItemCount),
    last_attested_at: account.lastAttestedAt === 0n ? null : Number(account.lastAttestedAt),
    state_slot: Number(stateSlot),
  };
}

/** Canonical Agent account addresses by program and agent key: deriving one costs SHA-256 rounds. */
const canonicalAddresses = new Map<string, Address>();
const MAX_CANONICAL_ADDRESSES = 10_000;

async function canonicalAgentAddress(programId: Address, agent: Address): Promise<Address> {
  const key = `${programId}:${agent}`;
  let canonical = canonicalAddresses.get(key);
  if (canonical === undefined) {
    canonical = (await deriveAgentAddress(programId, agent)).address;
    if (canonicalAddresses.size >= MAX_CANONICAL_ADDRESSES) canonicalAddresses.clear();
    canonicalAddresses.set(key, canonical);
  }
  return canonical;
}

/**
 * Writes the agent's row from its account as the snapshot shows it, in one statement. Only the
 * Agent account at the canonical address of its agent key counts (the program creates no other,
 * and the indexer does not take that on trust). A row that already holds a newer state (a higher
 * `state_slot`) is left alone, and so is a revoked agent's row (revoked is final) and any write that
 * names another operator or account for the key; `policy_violation_count` is the indexer's own
 * count and is never overwritten.
 */
export async function upsertAgentState(
  context: ApplyContext,
  agentAccount: Address | undefined,
): Promise<void> {
  const data = requireAccountData(context, agentAccount);
  // Every transaction of a group reads the agent at the same slot: one write of that state is enough.
  const written = `${context.snapshot.slot}:${agentAccount}`;
  if (context.agentStatesWritten.has(written)) return;
  let account: AgentAccount;
  try {
    account = decodeAgentAccount(data);
  } catch (error) {
    context.logger.error(
      { agentAccount, signature: context.transaction.signature, err: error },
      "agent account does not decode; skipped",
    );
    return;
  }
  const canonical = await canonicalAgentAddress(context.programId, account.agent);
  if (agentAccount !== canonical) {
    context.logger.error(
      { agentAccount, canonical, agent: account.agent, signature: context.transaction.signature },
      "agent account is not at its agent key's canonical address; skipped",
    );
    return;
  }
  const columns = agentStateColumns(agentAccount, account, context.snapshot.slot);
  await context.db
    .insertInto("agents")
    .values({ ...columns, policy_violation_count: 0 })
    .onConflict((conflict) =>
      conflict
        .column("agent")
        .doUpdateSet((eb) => ({
          address: eb.ref("excluded.address"),
          operator: eb.ref("excluded.operator"),
          status: eb.ref("excluded.status"),
          allowed_action_types: eb.ref("excluded.allowed_action_types"),
          registered_at: eb.ref("excluded.registered_at"),
          registered_slot: eb.ref("excluded.registered_slot"),
          updated_at: eb.ref("excluded.updated_at"),
          attestation_count: eb.ref("excluded.attestation_count"),
          batch_count: eb.ref("excluded.batch_count"),
          batch_item_count: eb.ref("excluded.batch_item_count"),
          last_attested_at: eb.ref("excluded.last_attested_at"),
          state_slot: eb.ref("excluded.state_slot"),
        }))
        .where((eb) =>
          eb.and([
            eb("agents.state_slot", "<=", eb.ref("excluded.state_slot")),
            eb("agents.status", "!=", "revoked"),
            eb("agents.operator", "=", eb.ref("excluded.operator")),
            eb("agents.address", "=", eb.ref("excluded.address")),
          ]),
        ),
    )
    .execute();
  context.agentStatesWritten.add(written);
}

/** Counts one refused attempt against the agent whose account is `agentAccount`; false when the agent is unknown. */
export async function countPolicyViolation(db: IndexerDatabase, agentAccount: Address): Promise<boolean> {
  const result = await db
    .updateTable("agents")
    .set((eb) => ({ policy_violation_count: eb("policy_violation_count", "+", 1) }))
    .where("address", "=", agentAccount)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
