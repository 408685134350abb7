/** Activity metrics of one agent, from its indexed attestations, relative to a ledger time. */
import { sql, type Kysely } from "kysely";

import type { Database } from "../schema.js";
import { perActionType, type ActionTypeName } from "./action-types.js";

const SECONDS_PER_DAY = 86_400;
export const ACTIVE_DAYS_WINDOW = 30;

export interface AgentActivity {
  readonly total: number;
  readonly single: number;
  readonly batchItems: number;
  readonly byActionType: Record<ActionTypeName, number>;
  readonly privacyCount: number;
  /** Ledger unix seconds of the first and last indexed attestation; null when there is none. */
  readonly firstSeenAt: number | null;
  readonly lastSeenAt: number | null;
  /** Attestations in the 24 hours and 7 days up to the reference time (window (ref - d, ref]). */
  readonly last24h: number;
  readonly last7d: number;
  /** Days among the 30 up to the reference time with at least one attestation. */
  readonly activeDaysLast30: number;
}

interface GroupRow {
  action_type: ActionTypeName;
  kind: "single" | "batch";
  count: number | string;
  privacy_count: number | string | null;
  first_at: number | string | null;
  last_at: number | string | null;
  last_24h: number | string | null;
  last_7d: number | string | null;
}

function optionalMin(current: number | null, value: number | string | null): number | null {
  if (value === null) return current;
  return current === null ? Number(value) : Math.min(current, Number(value));
}

function optionalMax(current: number | null, value: number | string | null): number | null {
  if (value === null) return current;
  return current === null ? Number(value) : Math.max(current, Number(value));
}

export async function getAgentActivity(
  db: Kysely<Database>,
  agent: string,
  referenceTime: number,
): Promise<AgentActivity> {
  const dayStart = referenceTime - SECONDS_PER_DAY;
  const weekStart = referenceTime - 7 * SECONDS_PER_DAY;
  // One pass over the agent's rows (its (agent, slot, seq) index), grouped by type and kind.
  const groups = (await db
    .selectFrom("attestations")
    .where("agent", "=", agent)
    .select((eb) => [
      "action_type",
      "kind",
      eb.fn.countAll().as("count"),
      eb.fn.sum("privacy").as("privacy_count"),
      eb.fn.min("timestamp").as("first_at"),
      eb.fn.max("timestamp").as("last_at"),
      sql<number>`sum(case when timestamp > ${dayStart} then 1 else 0 end)`.as("last_24h"),
      sql<number>`sum(case when timestamp > ${weekStart} then 1 else 0 end)`.as("last_7d"),
    ])
    .groupBy(["action_type", "kind"])
    .execute()) as GroupRow[];

  const byActionType = perActionType(0);
  let total = 0;
  let single = 0;
  let privacyCount = 0;
  let last24h = 0;
  let last7d = 0;
  let firstSeenAt: number | null = null;
  let lastSeenAt: number | null = null;
  for (const group of groups) {
    const count = Number(group.count);
    total += count;
    if (group.kind === "single") single += count;
    byActionType[group.action_type] += count;
    privacyCount += Number(group.privacy_count ?? 0);
    last24h += Number(group.last_24h ?? 0);
    last7d += Number(group.last_7d ?? 0);
    firstSeenAt = optionalMin(firstSeenAt, group.first_at);
    lastSeenAt = optionalMax(lastSeenAt, group.last_at);
  }

  return {
    total,
    single,
    batchItems: total - single,
    byActionType,
    privacyCount,
    firstSeenAt,
    lastSeenAt,
    last24h,
    last7d,
    activeDaysLast30: await countActiveDays(db, agent, referenceTime),
  };
}

/**
 * Days are counted back from the reference time (day 0 = the 24 hours ending at it), not as
 * calendar days, so the window always holds exactly 30 of them.
 */
async function countActiveDays(db: Kysely<Database>, agent: string, referenceTime: number): Promise<number> {
  const windowStart = referenceTime - ACTIVE_DAYS_WINDOW * SECONDS_PER_DAY;
  const row = await db
    .selectFrom("attestations")
    .where("agent", "=", agent)
    .where("timestamp", ">", windowStart)
    .where("timestamp", "<=", referenceTime)
    .select(
      sql<
        number | string
      >`count(distinct cast((${referenceTime} - timestamp) / ${SECONDS_PER_DAY} as integer))`.as("days"),
    )
    .executeTakeFirst();
  return Number(row?.days ?? 0);
}
