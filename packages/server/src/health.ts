/**
 * Two questions, two routes. Health (`/health`): can the service as a whole serve fresh ledger
 * data? The database answers, the ledger answers getSlot, the indexer has run, polled recently, is
 * not too far behind, and its index still matches the ledger. Readiness (`/ready`): should a load
 * balancer send this replica requests? It is not shutting down and reaches the database; the
 * ledger and the indexer are shared by every replica, so they are not part of it (a lagging
 * indexer must not pull every replica out at once). Freshness uses the wall clock on purpose: it
 * is about the running system, not about ledger facts.
 */
import type { ApiHealth, ApiHealthCause, ApiReadiness } from "@abas/api-contract";
import {
  ABAS_API__DATABASE_UNAVAILABLE,
  ABAS_API__INDEX_DIVERGED,
  ABAS_API__INDEXER_BEHIND,
  ABAS_API__INDEXER_NEVER_RAN,
  ABAS_API__INDEXER_STALE,
  ABAS_API__LEDGER_UNREACHABLE,
  ABAS_API__SHUTTING_DOWN,
  getAbasErrorMessage,
  type AbasErrorCode,
} from "@abas/errors";
import { getIndexerStatus, type Database, type Dialect, type IndexerStatus } from "@abas/db";
import type { Kysely } from "kysely";

import { fetchLedgerSlot } from "./ledger-slot.js";
import { getApiErrorName } from "./problem.js";

export interface HealthSettings {
  readonly rpcUrl: string;
  /** How long getSlot and the database query may take. */
  readonly timeoutMs: number;
  /** The indexer is stale when its last successful poll is older than this. */
  readonly staleAfterSeconds: number;
  /** The indexer is behind when the ledger is more slots ahead than this. */
  readonly maxLagSlots: number;
}

function cause(code: AbasErrorCode, context: Record<string, unknown> = {}): ApiHealthCause {
  return { code, name: getApiErrorName(code) ?? String(code), detail: getAbasErrorMessage(code, context) };
}

function isoOrNull(milliseconds: number | null): string | null {
  return milliseconds === null ? null : new Date(milliseconds).toISOString();
}

/** The indexer's recorded state, or undefined when the database does not answer in time. */
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
): Promise<ApiHealth> {
  const [indexer, ledger] = await Promise.all([
    readIndexerStatus(db, settings.timeoutMs),
    fetchLedgerSlot(settings.rpcUrl, settings.timeoutMs),
  ]);
  const causes: ApiHealthCause[] = [];
  if (indexer === undefined) causes.push(cause(ABAS_API__DATABASE_UNAVAILABLE));
  if (!ledger.ok) causes.push(cause(ABAS_API__LEDGER_UNREACHABLE, { reason: ledger.reason }));

  const ledgerSlot = ledger.ok ? ledger.slot : null;
  const indexedSlot = indexer?.indexedSlot ?? null;
  const lagSlots = ledgerSlot !== null && indexedSlot !== null ? Math.max(0, ledgerSlot - indexedSlot) : null;
  let indexerState: ApiHealth["indexer"]["status"] = "unknown";
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
    if (indexer.divergence !== null)
      causes.push(cause(ABAS_API__INDEX_DIVERGED, { reason: indexer.divergence }));
  }

  return {
    // Without the database nothing can be served; anything else leaves answers that may be stale or wrong.
    status: indexer === undefined ? "unhealthy" : causes.length > 0 ? "degraded" : "ok",
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
      divergence: indexer?.divergence ?? null,
    },
    checkedAt: new Date(now).toISOString(),
  };
}

export async function checkReadiness(
  db: Kysely<Database>,
  options: { readonly draining: boolean; readonly timeoutMs: number },
  now = Date.now(),
): Promise<ApiReadiness> {
  const causes: ApiHealthCause[] = [];
  if (options.draining) causes.push(cause(ABAS_API__SHUTTING_DOWN));
  else if ((await readIndexerStatus(db, options.timeoutMs)) === undefined) {
    causes.push(cause(ABAS_API__DATABASE_UNAVAILABLE));
  }
  return {
    status: causes.length === 0 ? "ready" : "not_ready",
    causes,
    checkedAt: new Date(now).toISOString(),
  };
}
