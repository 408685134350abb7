/** Defaults shared by the app (when built directly, as in tests) and the environment config. */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;
/** Refused API keys (unknown or revoked) per client address per minute. */
export const DEFAULT_FAILED_API_KEYS_PER_MINUTE = 30;

export const DEFAULT_HEALTH_SETTINGS = {
  /** How long getSlot and the database query may take. */
  timeoutMs: 1500,
  /** The indexer is stale when its last successful poll is older than this. */
  staleAfterSeconds: 60,
  /** About a minute of slots at 400 ms. */
  maxLagSlots: 150,
} as const;

/** A verified API key is trusted this long: a revoked key is refused at most this long after revocation. */
export const DEFAULT_API_KEY_CACHE_MS = 2_000;
/** A cached attestation page includes every row committed at least this long before the request. */
export const DEFAULT_LIST_MAX_STALENESS_MS = 100;
/** Attestation pages kept serialised (each at most 100 attestations, about 60 KB). */
export const DEFAULT_LIST_CACHE_ENTRIES = 1_000;
