/** Agents: the profile's id, and the profile with its metrics and reputation. */
import { Type, type Static } from "@sinclair/typebox";

import { ApiActionTypeName } from "./action-type.js";
import { ADDRESS_PATTERN, Nullable, StringEnum } from "./schema-builders.js";

export const AgentIdParams = Type.Object({
  id: Type.String({
    pattern: ADDRESS_PATTERN,
    description: "The agent's public key (or its Agent account address)",
  }),
});

const PerActionType = Type.Object({
  Transaction: Type.Integer(),
  ToolCall: Type.Integer(),
  Decision: Type.Integer(),
  ModelInvocation: Type.Integer(),
});

const UnixSeconds = (description: string) =>
  Type.Integer({ description: `${description} (ledger unix seconds)` });

export const ApiAgentMetrics = Type.Object({
  attestations: Type.Object(
    {
      total: Type.Integer(),
      single: Type.Integer(),
      batchItems: Type.Integer(),
      byActionType: PerActionType,
    },
    { description: "Indexed attestations: singles plus batch items whose leaves are published and verified" },
  ),
  ledgerCounters: Type.Object(
    {
      singleAttestations: Type.Integer(),
      batches: Type.Integer(),
      batchItems: Type.Integer(),
      lastAttestedAt: Nullable(UnixSeconds("Last attestation")),
    },
    { description: "The counters of the agent's on-chain account" },
  ),
  firstSeenAt: Nullable(UnixSeconds("First indexed attestation")),
  lastSeenAt: Nullable(UnixSeconds("Newest indexed attestation")),
  recent: Type.Object(
    {
      referenceTime: UnixSeconds("The newest ledger time in the database, where the windows end"),
      last24h: Type.Integer(),
      last7d: Type.Integer(),
      activeDaysLast30: Type.Integer({ minimum: 0, maximum: 30 }),
    },
    { description: "Activity in windows ending at the newest ledger time (not the wall clock)" },
  ),
  privacy: Type.Object({
    count: Type.Integer(),
    share: Type.Number({ minimum: 0, maximum: 1 }),
  }),
  policyViolations: Type.Integer({
    description: "Attempts the program refused for policy or status reasons",
  }),
});
export type ApiAgentMetrics = Static<typeof ApiAgentMetrics>;

const Unit = Type.Number({ minimum: 0, maximum: 1 });

export const ApiReputation = Type.Object(
  {
    score: Type.Integer({ minimum: 0, maximum: 100 }),
    version: Type.Literal("1"),
    referenceTime: UnixSeconds("The time the score is computed at"),
    components: Type.Object({ tenure: Unit, volume: Unit, regularity: Unit, compliance: Unit }),
    weights: Type.Object({ tenure: Unit, volume: Unit, regularity: Unit, compliance: Unit }),
    uncappedScore: Type.Integer({ minimum: 0, maximum: 100 }),
    cap: Nullable(Type.Integer({ description: "40 when suspended, 0 when revoked, null when active" })),
  },
  { description: "Reputation v1 (docs/api.md gives the formula)" },
);
export type ApiReputation = Static<typeof ApiReputation>;

export const ApiAgent = Type.Object({
  agent: Type.String({ description: "The agent's public key" }),
  address: Type.String({ description: "Its Agent account (PDA)" }),
  operator: Type.String(),
  status: StringEnum(["active", "suspended", "revoked"] as const),
  policy: Type.Object({ allowedActionTypes: Type.Array(ApiActionTypeName) }),
  registeredAt: UnixSeconds("Registration"),
  registeredSlot: Type.Integer(),
  updatedAt: UnixSeconds("Last change of status or policy"),
  stateSlot: Type.Integer({ description: "The slot of the ledger state this profile reflects" }),
  metrics: ApiAgentMetrics,
  reputation: ApiReputation,
});
export type ApiAgent = Static<typeof ApiAgent>;
