export { API_PREFIX, buildApp, type AbasApp, type AppOptions } from "./app.js";
export {
  DEFAULT_API_KEY_CACHE_MS,
  DEFAULT_HEALTH_SETTINGS,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
} from "./defaults.js";
export {
  loadDatabaseConfig,
  loadServerConfig,
  TrustProxySetting,
  type DatabaseConfig,
  type ServerConfig,
} from "./config.js";
export { KEYS_USAGE, runKeysCli, type CliOutput } from "./keys-cli.js";
export {
  closeOnSignals,
  DEFAULT_SERVER_TIMEOUTS,
  startServer,
  type RunningServer,
  type ServerTimeouts,
} from "./server.js";
export { TokenBucketRateLimiter, type RateLimitDecision } from "./rate-limiter.js";
