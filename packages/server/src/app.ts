/**
 * Builds the REST API as a Fastify instance, without listening (server.ts listens), so tests can
 * use `inject` or a real socket alike. Routes live under /api/v1; every route except health, ping
 * and the OpenAPI document needs an API key.
 */
import { randomUUID } from "node:crypto";

import { createLastUsedRecorder, type Database, type Dialect, type LastUsedRecorder } from "@abas/db";
import swagger from "@fastify/swagger";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawServerDefault } from "fastify";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Kysely } from "kysely";
import type { DestinationStream } from "pino";

import { createApiKeyAuthHook } from "./api-key-auth.js";
import { DEFAULT_HEALTH_SETTINGS, DEFAULT_RATE_LIMIT_PER_MINUTE } from "./defaults.js";
import { handleError, handleNotFound } from "./error-handler.js";
import type { HealthSettings } from "./health.js";
import { loggerOptions, type LogLevel } from "./logger.js";
import { TokenBucketRateLimiter } from "./rate-limiter.js";
import { agentRoutes } from "./routes/agents.js";
import { attestationRoutes } from "./routes/attestations.js";
import { publicRoutes } from "./routes/public.js";
import { SECURITY_SCHEMES } from "./schemas/common.js";

export const API_PREFIX = "/api/v1";
export const API_VERSION = "1.0.0";

export interface AppOptions {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  readonly rpcUrl: string;
  readonly logLevel?: LogLevel;
  /** Where log lines go; default stdout. */
  readonly logStream?: DestinationStream;
  /** Requests per key per minute (token bucket: also the burst). Default 600. */
  readonly rateLimitPerMinute?: number;
  readonly health?: Partial<Omit<HealthSettings, "rpcUrl">>;
}

export type AbasApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
> & { readonly lastUsed: LastUsedRecorder };

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A caller's X-Request-Id when it is a plain token (it goes into logs), a fresh UUID otherwise. */
function requestIdOf(request: IncomingMessage): string {
  const given = request.headers["x-request-id"];
  return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
}

export async function buildApp(options: AppOptions): Promise<AbasApp> {
  const app = Fastify({
    logger: loggerOptions(options.logLevel ?? "info", options.logStream),
    genReqId: requestIdOf,
    // The API is GET-only, as its OpenAPI document says.
    exposeHeadRoutes: false,
    // Reject unknown query parameters instead of silently dropping them (a typo must not widen a filter).
    ajv: { customOptions: { removeAdditional: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const lastUsed = createLastUsedRecorder(options.db, {
    onError: (error) => app.log.warn({ err: error }, "could not record an API key's last use"),
  });
  const rateLimiter = new TokenBucketRateLimiter({
    limit: options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
    windowSeconds: 60,
  });

  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
  app.addHook("onRequest", async (request, reply) => {
    void reply.header("x-request-id", request.id);
  });
  app.addHook("onClose", async () => {
    await lastUsed.flush();
  });

  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "ABAS REST API",
        version: API_VERSION,
        description:
          "Read-only access to indexed Agent Behavior Attestation Service data: attestations, agents and their " +
          "reputation, indexer health. Errors are RFC 9457 problem documents with a numeric ABAS code.",
      },
      components: { securitySchemes: SECURITY_SCHEMES },
      tags: [
        { name: "attestations", description: "Attested agent actions" },
        { name: "agents", description: "Agents, their policies, metrics and reputation" },
        { name: "service", description: "Health, ping and this document (no API key needed)" },
      ],
    },
  });

  await app.register(
    async (api) => {
      await api.register(publicRoutes, {
        db: options.db,
        dialect: options.dialect,
        health: { rpcUrl: options.rpcUrl, ...DEFAULT_HEALTH_SETTINGS, ...options.health },
      });
      await api.register(async (protectedApi) => {
        protectedApi.addHook("onRequest", createApiKeyAuthHook({ db: options.db, rateLimiter, lastUsed }));
        await protectedApi.register(attestationRoutes, { db: options.db });
        await protectedApi.register(agentRoutes, { db: options.db });
      });
    },
    { prefix: API_PREFIX },
  );

  return Object.assign(app, { lastUsed });
}
