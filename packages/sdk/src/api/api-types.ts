/**
 * The REST API's shapes (docs/api.md), as the ApiClient returns them: the contract's own types
 * (`@abas/api-contract`), plus the client's query, which also takes a Date for a time bound.
 */
import type { ListAttestationsQuery } from "@abas/api-contract";

export type {
  ApiActionTypeName,
  ApiAgent,
  ApiAgentMetrics,
  ApiAttestation,
  ApiAttestationLookup,
  ApiAttestationPage,
  ApiHealth,
  ApiHealthCause,
  ApiProblem,
  ApiReputation,
} from "@abas/api-contract";

export type ApiListAttestationsQuery = Readonly<
  Partial<Omit<ListAttestationsQuery, "since" | "until">> & {
    /** Inclusive: unix seconds, a Date, or an ISO 8601 date or date-time. */
    since?: number | Date | string;
    /** Exclusive: unix seconds, a Date, or an ISO 8601 date or date-time. */
    until?: number | Date | string;
  }
>;
