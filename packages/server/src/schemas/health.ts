import { Type } from "@sinclair/typebox";

import { Nullable, StringEnum } from "./common.js";

const IsoTime = (description: string) => Nullable(Type.String({ format: "date-time", description }));

export const HealthCause = Type.Object({
  code: Type.Integer({ examples: [4401] }),
  name: Type.String({ examples: ["ABAS_API__LEDGER_UNREACHABLE"] }),
  detail: Type.String(),
});

export const HealthReport = Type.Object({
  status: StringEnum(["ok", "unhealthy"] as const),
  causes: Type.Array(HealthCause, { description: "Why the service is unhealthy; empty when ok" }),
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
  }),
  checkedAt: Type.String({ format: "date-time" }),
});

export const Ping = Type.Object({ ok: Type.Literal(true) });
