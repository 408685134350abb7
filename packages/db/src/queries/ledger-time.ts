/**
 * The newest ledger timestamp the database holds: the reference time of recent-activity metrics
 * and of the reputation score. Using ledger time rather than the wall clock makes both a function
 * of the indexed ledger alone, identical on every replica and when recomputed later.
 */
import { sql, type Kysely } from "kysely";

import type { Database } from "../schema.js";

/** Unix seconds, or null when nothing is indexed yet. */
export async function getNewestLedgerTime(db: Kysely<Database>): Promise<number | null> {
  // The newest row by the (slot, seq) index carries the newest attestation timestamp.
  const newestAttestation = await db
    .selectFrom("attestations")
    .select("timestamp")
    .orderBy("slot", "desc")
    .orderBy("seq", "desc")
    .limit(1)
    .executeTakeFirst();
  // Agent accounts move the clock too: registrations, policy updates, and batch commits whose
  // items are not indexed yet (last_attested_at). One max() a subquery, so that SQLite reads each
  // from the end of its index (it does so only for a lone max()).
  const newestAgentChange = await db
    .selectNoFrom([
      sql<number | null>`(select max(updated_at) from agents)`.as("updated_at"),
      sql<number | null>`(select max(last_attested_at) from agents)`.as("last_attested_at"),
    ])
    .executeTakeFirst();
  const candidates = [
    newestAttestation?.timestamp,
    newestAgentChange?.updated_at,
    newestAgentChange?.last_attested_at,
  ].filter((value): value is number => value !== null && value !== undefined);
  return candidates.length === 0 ? null : Math.max(...candidates.map(Number));
}
