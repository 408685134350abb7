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
