/** Pino settings: level from LOG_LEVEL, request ids, and API keys never written (headers or URL). */
import type { FastifyRequest, FastifyServerOptions } from "fastify";
import type { DestinationStream } from "pino";

import { redactUrl } from "./redact-url.js";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function loggerOptions(
  level: LogLevel,
  stream?: DestinationStream,
): NonNullable<FastifyServerOptions["logger"]> {
  return {
    level,
    ...(stream === undefined ? {} : { stream }),
    serializers: {
      // Fastify's own request fields, with the URL redacted.
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
    // The request serializer logs no headers; these paths keep it so if a serializer changes.
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
