/**
 * The health report: the database answers, the ledger answers getSlot, and the indexer has run,
 * polled recently and is not too far behind. Freshness uses the wall clock on purpose: it is about
 * the running system, not about ledger facts.
 */
import {
  ABAS_API__DATABASE_UNAVAILABLE,
  ABAS_API__INDEXER_BEHIND,
  ABAS_API__INDEXER_NEVER_RAN,
  ABAS_API__INDEXER_STALE,
  ABAS_API__LEDGER_UNREACHABLE,
  getAbasErrorMessage,
  type AbasErrorCode,
} from "@abas/errors";
import { getIndexerStatus, type Database, type Dialect, type IndexerStatus } from "@abas/db";
import type { Static } from "@sinclair/typebox";
import type { Kysely } from "kysely";

import { fetchLedgerSlot } from "./ledger-slot.js";
import { getApiErrorName } from "./problem.js";
import type { HealthReport } from "./schemas/health.js";

export type HealthReportBody = Static<typeof HealthReport>;

export interface HealthSettings {
  readonly rpcUrl: string;
  /** How long getSlot and the database query may take. */
  readonly timeoutMs: number;
  /** The indexer is stale when its last successful poll is older than this. */
  readonly staleAfterSeconds: number;
  /** The indexer is behind when the ledger is more slots ahead than this. */
  readonly maxLagSlots: number;
}

type Cause = HealthReportBody["causes"][number];

function cause(code: AbasErrorCode, context: Record<string, unknown> = {}): Cause {
  return { code, name: getApiErrorName(code) ?? String(code), detail: getAbasErrorMessage(code, context) };
}

function isoOrNull(milliseconds: number | null): string | null {
  return milliseconds === null ? null : new Date(milliseconds).toISOString();
}

async function readIndexerStatus(
  db: Kysely<Database>,
  timeoutMs: number,
): Promise<IndexerStatus | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, undefined);
  });
  try {
    return await Promise.race([getIndexerStatus(db), timeout]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

export async function checkHealth(
  db: Kysely<Database>,
  dialect: Dialect,
  settings: HealthSettings,
  now = Date.now(),
): Promise<HealthReportBody> {
  const [indexer, ledger] = await Promise.all([
    readIndexerStatus(db, settings.timeoutMs),
    fetchLedgerSlot(settings.rpcUrl, settings.timeoutMs),
  ]);
  const causes: Cause[] = [];
  if (indexer === undefined) causes.push(cause(ABAS_API__DATABASE_UNAVAILABLE));
  if (!ledger.ok) causes.push(cause(ABAS_API__LEDGER_UNREACHABLE, { reason: ledger.reason }));

  const ledgerSlot = ledger.ok ? ledger.slot : null;
  const indexedSlot = indexer?.indexedSlot ?? null;
  const lagSlots = ledgerSlot !== null && indexedSlot !== null ? Math.max(0, ledgerSlot - indexedSlot) : null;
  let indexerState: HealthReportBody["indexer"]["status"] = "unknown";
  if (indexer !== undefined) {
    const secondsSinceHeartbeat =
      indexer.heartbeatAt === null ? null : Math.floor((now - indexer.heartbeatAt) / 1000);
    if (indexedSlot === null && indexer.heartbeatAt === null) {
      indexerState = "never_ran";
      causes.push(cause(ABAS_API__INDEXER_NEVER_RAN));
    } else if (secondsSinceHeartbeat === null || secondsSinceHeartbeat > settings.staleAfterSeconds) {
      indexerState = "stale";
      causes.push(
        cause(ABAS_API__INDEXER_STALE, {
          secondsSinceHeartbeat: secondsSinceHeartbeat ?? "unknown",
          staleAfterSeconds: settings.staleAfterSeconds,
        }),
      );
    } else if (lagSlots !== null && lagSlots > settings.maxLagSlots) {
      indexerState = "behind";
      causes.push(cause(ABAS_API__INDEXER_BEHIND, { lagSlots, maxLagSlots: settings.maxLagSlots }));
    } else {
      indexerState = "ok";
    }
  }

  return {
    status: causes.length === 0 ? "ok" : "unhealthy",
    causes,
    database: { status: indexer === undefined ? "unavailable" : "ok", dialect },
    ledger: { status: ledger.ok ? "ok" : "unreachable", slot: ledgerSlot },
    indexer: {
      status: indexerState,
      indexedSlot,
      lagSlots,
      lastIngestAt: isoOrNull(indexer?.lastIngestAt ?? null),
      heartbeatAt: isoOrNull(indexer?.heartbeatAt ?? null),
      lastErrorAt: isoOrNull(indexer?.lastErrorAt ?? null),
    },
    checkedAt: new Date(now).toISOString(),
  };
}
