/** The public service routes: health, readiness and ping. */
import { Type, type Static } from "@sinclair/typebox";

import { Nullable, StringEnum } from "./schema-builders.js";

const IsoTime = (description: string) => Nullable(Type.String({ format: "date-time", description }));

export const ApiHealthCause = Type.Object({
  code: Type.Integer({ examples: [4401] }),
  name: Type.String({ examples: ["ABAS_API__LEDGER_UNREACHABLE"] }),
  detail: Type.String(),
});
export type ApiHealthCause = Static<typeof ApiHealthCause>;

export const ApiHealth = Type.Object({
  status: StringEnum(["ok", "degraded", "unhealthy"] as const, {
    description:
      "ok: fresh ledger data is served; degraded: answers may be stale or not match the ledger (see causes); " +
      "unhealthy: the database does not answer",
  }),
  causes: Type.Array(ApiHealthCause, { description: "Why the service is not ok; empty when ok" }),
  database: Type.Object({
    status: StringEnum(["ok", "unavailable"] as const),
    dialect: StringEnum(["sqlite", "postgres"] as const),
  }),
  ledger: Type.Object({
    status: StringEnum(["ok", "unreachable"] as const),
    slot: Nullable(Type.Integer({ description: "The ledger's current slot (getSlot)" })),
  }),
  indexer: Type.Object({
    status: StringEnum(["ok", "never_ran", "stale", "behind", "unknown"] as const),
    indexedSlot: Nullable(
      Type.Integer({ description: "The slot up to which the indexer has applied everything" }),
    ),
    lagSlots: Nullable(Type.Integer({ description: "ledger slot - indexed slot" })),
    lastIngestAt: IsoTime("When the indexer last applied a new transaction"),
    heartbeatAt: IsoTime("When the indexer last polled successfully"),
    lastErrorAt: IsoTime("When the indexer last met an error, if its last poll failed"),
    divergence: Nullable(
      Type.String({
        description:
          "Why the index no longer matches the ledger (repaired by abas reindex); null when it does",
      }),
    ),
  }),
  checkedAt: Type.String({ format: "date-time" }),
});
export type ApiHealth = Static<typeof ApiHealth>;

export const ApiReadiness = Type.Object({
  status: StringEnum(["ready", "not_ready"] as const, {
    description: "ready: this replica can answer; not_ready: take it out of the load balancer (see causes)",
  }),
  causes: Type.Array(ApiHealthCause, { description: "Why this replica is not ready; empty when ready" }),
  checkedAt: Type.String({ format: "date-time" }),
});

export type ApiReadiness = Static<typeof ApiReadiness>;

export const ApiPing = Type.Object({ ok: Type.Literal(true) });
export type ApiPing = Static<typeof ApiPing>;
