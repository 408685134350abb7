export { ConfigError, DEFAULT_RPC_PORT, DEFAULT_SLOT_MS, type LedgerOptions } from "./config.js";
export {
  LedgerGenesisMissingError,
  LedgerLogDamagedError,
  LedgerLogTruncatedError,
  type StartupReport,
} from "./ledger/open-ledger.js";
export { createLogger, type Logger, type LogLevel } from "./logger.js";
export { portInUseMessage } from "./port-in-use.js";
export { spawnLedgerProcess, type LedgerProcess, type SpawnLedgerOptions } from "./spawn-ledger-process.js";
export { startLedger, type RunningLedger, type StartLedgerOptions } from "./start-ledger.js";
