/** Pino settings: level from LOG_LEVEL, request ids, and API keys never written. */
import type { FastifyServerOptions } from "fastify";
import type { DestinationStream } from "pino";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function loggerOptions(
  level: LogLevel,
  stream?: DestinationStream,
): NonNullable<FastifyServerOptions["logger"]> {
  return {
    level,
    ...(stream === undefined ? {} : { stream }),
    // Fastify's request serializer logs no headers; these paths keep it so if a serializer changes.
    redact: {
      paths: [
        "req.headers.authorization",
        'req.headers["x-api-key"]',
        "headers.authorization",
        'headers["x-api-key"]',
      ],
      censor: "[redacted]",
    },
  };
}
