/** The REST API's response shapes (docs/api.md), as the ApiClient returns them. */

export type ApiActionTypeName = "Transaction" | "ToolCall" | "Decision" | "ModelInvocation";

export interface ApiAttestation {
  /** The attestation account address, or `<batch address>:<index>` for a batch item. */
  readonly id: string;
  readonly kind: "single" | "batch";
  /** The agent's public key. */
  readonly agent: string;
  readonly operator: string;
  readonly actionType: ApiActionTypeName;
  /** True when `storedHash` is a salted commitment (privacy mode). */
  readonly privacy: boolean;
  /** What the ledger stores (hex): the action hash, or its commitment. */
  readonly storedHash: string;
  /** The agent's Ed25519 signature (base58). */
  readonly agentSignature: string;
  /** The recording transaction; for a batch item, the batch commit. */
  readonly txSignature: string;
  readonly slot: number;
  /** Ledger unix seconds. */
  readonly timestamp: number;
  readonly batch: { readonly address: string; readonly index: number; readonly merkleRoot: string } | null;
}

export interface ApiAttestationPage {
  /** Newest first. */
  readonly data: ApiAttestation[];
  readonly pagination: {
    /** Pass as `cursor` for the next page; null on the last page. */
    readonly nextCursor: string | null;
    readonly hasMore: boolean;
  };
}

export interface ApiAttestationLookup {
  readonly matchedBy: "id" | "txSignature";
  /** One attestation for an id; every attestation of the transaction for a signature. */
  readonly data: ApiAttestation[];
}

export interface ApiListAttestationsQuery {
  /** 1 to 100, default 20. */
  readonly limit?: number;
  readonly cursor?: string;
  readonly agent?: string;
  readonly operator?: string;
  readonly actionType?: ApiActionTypeName;
  readonly privacy?: boolean;
  /** Inclusive: unix seconds, a Date, or an ISO 8601 date or date-time. */
  readonly since?: number | Date | string;
  /** Exclusive: unix seconds, a Date, or an ISO 8601 date or date-time. */
  readonly until?: number | Date | string;
  /** A batch commitment address. */
  readonly batch?: string;
  /** 64 lowercase hex: what the ledger stores, the action hash or (privacy mode) its commitment. */
  readonly storedHash?: string;
}

type PerActionType = Readonly<Record<ApiActionTypeName, number>>;

export interface ApiReputation {
  /** 0..100. */
  readonly score: number;
  readonly version: "1";
  /** Ledger unix seconds the score is computed at. */
  readonly referenceTime: number;
  readonly components: {
    readonly tenure: number;
    readonly volume: number;
    readonly regularity: number;
    readonly compliance: number;
  };
  readonly weights: {
    readonly tenure: number;
    readonly volume: number;
    readonly regularity: number;
    readonly compliance: number;
  };
  readonly uncappedScore: number;
  /** 40 when suspended, 0 when revoked, null when active. */
  readonly cap: number | null;
}

export interface ApiAgent {
  readonly agent: string;
  /** The Agent account (PDA). */
  readonly address: string;
  readonly operator: string;
  readonly status: "active" | "suspended" | "revoked";
  readonly policy: { readonly allowedActionTypes: ApiActionTypeName[] };
  readonly registeredAt: number;
  readonly registeredSlot: number;
  readonly updatedAt: number;
  readonly stateSlot: number;
  readonly metrics: {
    readonly attestations: {
      readonly total: number;
      readonly single: number;
      readonly batchItems: number;
      readonly byActionType: PerActionType;
    };
    readonly ledgerCounters: {
      readonly singleAttestations: number;
      readonly batches: number;
      readonly batchItems: number;
      readonly lastAttestedAt: number | null;
    };
    readonly firstSeenAt: number | null;
    readonly lastSeenAt: number | null;
    readonly recent: {
      readonly referenceTime: number;
      readonly last24h: number;
      readonly last7d: number;
      readonly activeDaysLast30: number;
    };
    readonly privacy: { readonly count: number; readonly share: number };
    readonly policyViolations: number;
  };
  readonly reputation: ApiReputation;
}

export interface ApiHealthCause {
  readonly code: number;
  readonly name: string;
  readonly detail: string;
}

export interface ApiHealth {
  /** ok; degraded: answers may be stale or not match the ledger (see causes); unhealthy: no database. */
  readonly status: "ok" | "degraded" | "unhealthy";
  readonly causes: ApiHealthCause[];
  readonly database: { readonly status: "ok" | "unavailable"; readonly dialect: "sqlite" | "postgres" };
  readonly ledger: { readonly status: "ok" | "unreachable"; readonly slot: number | null };
  readonly indexer: {
    readonly status: "ok" | "never_ran" | "stale" | "behind" | "unknown";
    readonly indexedSlot: number | null;
    readonly lagSlots: number | null;
    readonly lastIngestAt: string | null;
    readonly heartbeatAt: string | null;
    readonly lastErrorAt: string | null;
    /** Why the index no longer matches the ledger (abas reindex repairs it); null when it does. */
    readonly divergence: string | null;
  };
  readonly checkedAt: string;
}
