import pino from "pino";

export type Logger = pino.Logger;

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** JSON lines on stderr (stdout stays free for command output); synchronous, so a crash loses no line. */
export function createIndexerLogger(level: LogLevel = "info"): Logger {
  return pino({ name: "abas-indexer", level }, pino.destination({ fd: 2, sync: true }));
}
