/** One agent's profile: its on-chain state, policy, activity metrics and reputation. */
import type { ApiAgent } from "@abas/api-contract";
import type { Kysely } from "kysely";

import { computeReputation } from "../reputation.js";
import type { Database } from "../schema.js";
import { actionTypeNamesFromMask } from "./action-types.js";
import { getAgentActivity, type AgentActivity } from "./agent-metrics.js";
import { getNewestLedgerTime } from "./ledger-time.js";
import { ReuseCache } from "./reuse-cache.js";

/**
 * From this many attestations on, an agent's activity (one pass over all of them) is reused for
 * REUSE_MS_PER_ATTESTATION per attestation instead of computed on every request: the pass costs
 * about 0.7 µs per attestation on SQLite, on the server's only thread, so recomputing one agent
 * takes at most about 1% of the server's time (600,000 attestations: 0.4 s of work, reused 42 s).
 */
const ACTIVITY_REUSE_FROM_ATTESTATIONS = 25_000;
const REUSE_MS_PER_ATTESTATION = 0.07;

const activityCaches = new WeakMap<
  Kysely<Database>,
  ReuseCache<{ referenceTime: number; activity: AgentActivity }>
>();

/** Each database's agents' activity with the ledger time it was computed against. */
function activityCacheOf(db: Kysely<Database>) {
  let cache = activityCaches.get(db);
  if (cache === undefined) {
    cache = new ReuseCache({
      reuseMs: ({ activity }) =>
        activity.total < ACTIVITY_REUSE_FROM_ATTESTATIONS ? 0 : activity.total * REUSE_MS_PER_ATTESTATION,
    });
    activityCaches.set(db, cache);
  }
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
