/** One agent's profile: its on-chain state, policy, activity metrics and reputation. */
import type { ApiAgent } from "@abas/api-contract";
import type { Kysely } from "kysely";

import { computeReputation } from "../reputation.js";
import type { Database } from "../schema.js";
import { actionTypeNamesFromMask } from "./action-types.js";
import { getAgentActivity, type AgentActivity } from "./agent-metrics.js";
import { CostBoundedCache } from "./cost-bounded-cache.js";
import { getNewestLedgerTime } from "./ledger-time.js";

/**
 * Each database's agents' activity with the ledger time it was computed against. The activity
 * aggregates all of an agent's attestations: for an agent with hundreds of thousands of them that
 * takes a large fraction of a second, on SQLite on the server's only thread, so a costly result is
 * reused for a time in proportion to its cost (CostBoundedCache's defaults: from 20 ms of cost,
 * 100 times as long as it took).
 */
const activityCaches = new WeakMap<
  Kysely<Database>,
  CostBoundedCache<{ referenceTime: number; activity: AgentActivity }>
>();

function activityCacheOf(db: Kysely<Database>) {
  let cache = activityCaches.get(db);
  if (cache === undefined) activityCaches.set(db, (cache = new CostBoundedCache()));
  return cache;
}

/** By the agent's public key or its Agent account address; undefined when not indexed. */
export async function getAgent(db: Kysely<Database>, agentOrAddress: string): Promise<ApiAgent | undefined> {
  const row = await db
    .selectFrom("agents")
    .selectAll()
    .where((eb) => eb.or([eb("agent", "=", agentOrAddress), eb("address", "=", agentOrAddress)]))
    .executeTakeFirst();
  if (row === undefined) return undefined;

  const { referenceTime, activity } = await activityCacheOf(db).get(row.agent, async () => {
    // The agent row itself is a ledger fact, so the reference time exists whenever an agent does.
    const referenceTime = (await getNewestLedgerTime(db)) ?? Number(row.updated_at);
    return { referenceTime, activity: await getAgentActivity(db, row.agent, referenceTime) };
  });
  const lastAttestedAt = row.last_attested_at === null ? null : Number(row.last_attested_at);
  const policyViolations = Number(row.policy_violation_count);

  return {
    agent: row.agent,
    address: row.address,
    operator: row.operator,
    status: row.status,
    policy: { allowedActionTypes: actionTypeNamesFromMask(Number(row.allowed_action_types)) },
    registeredAt: Number(row.registered_at),
    registeredSlot: Number(row.registered_slot),
    updatedAt: Number(row.updated_at),
    stateSlot: Number(row.state_slot),
    metrics: {
      attestations: {
        total: activity.total,
        single: activity.single,
        batchItems: activity.batchItems,
        byActionType: activity.byActionType,
      },
      ledgerCounters: {
        singleAttestations: Number(row.attestation_count),
        batches: Number(row.batch_count),
        batchItems: Number(row.batch_item_count),
        // The account stores 0 for "never".
        lastAttestedAt: lastAttestedAt === 0 ? null : lastAttestedAt,
      },
      firstSeenAt: activity.firstSeenAt,
      lastSeenAt: activity.lastSeenAt,
      recent: {
        referenceTime,
        last24h: activity.last24h,
        last7d: activity.last7d,
        activeDaysLast30: activity.activeDaysLast30,
      },
      privacy: {
        count: activity.privacyCount,
        share:
          activity.total === 0 ? 0 : Math.round((activity.privacyCount / activity.total) * 10_000) / 10_000,
      },
      policyViolations,
    },
    reputation: computeReputation({
      status: row.status,
      registeredAt: Number(row.registered_at),
      attestationCount: activity.total,
      activeDaysInWindow: activity.activeDaysLast30,
      policyViolations,
      referenceTime,
    }),
  };
}
