/**
 * Builds the REST API as a Fastify instance, without listening (server.ts listens), so tests can
 * use `inject` or a real socket alike. Routes live under /api/v1; every route except health,
 * readiness, ping and the OpenAPI document needs an API key.
 */
import { randomUUID } from "node:crypto";

import {
  createLastUsedRecorder,
  readAttestationsVersion,
  type Database,
  type Dialect,
  type LastUsedRecorder,
} from "@abas/db";
import swagger from "@fastify/swagger";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type RawServerDefault } from "fastify";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Kysely } from "kysely";
import type { DestinationStream } from "pino";

import { createApiKeyAuthHook } from "./api-key-auth.js";
import { createDataVersion } from "./data-version.js";
import {
  DEFAULT_API_KEY_CACHE_MS,
  DEFAULT_FAILED_API_KEYS_PER_MINUTE,
  DEFAULT_HEALTH_SETTINGS,
  DEFAULT_LIST_CACHE_ENTRIES,
  DEFAULT_LIST_MAX_STALENESS_MS,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
} from "./defaults.js";
import { handleClientError, handleError, handleNotFound } from "./error-handler.js";
import type { HealthSettings } from "./health.js";
import { createLifecycle, type Lifecycle } from "./lifecycle.js";
import { loggerOptions, type LogLevel } from "./logger.js";
import { SECURITY_SCHEMES } from "./openapi-responses.js";
import { TokenBucketRateLimiter } from "./rate-limiter.js";
import { ResponseCache } from "./response-cache.js";
import { agentRoutes } from "./routes/agents.js";
import { attestationRoutes } from "./routes/attestations.js";
import { publicRoutes } from "./routes/public.js";
import { createVerifiedApiKeyCache } from "./verified-api-key-cache.js";

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
  /** Refused keys (unknown or revoked) per client address per minute. Default 30. */
  readonly failedApiKeysPerMinute?: number;
  /**
   * Which peers are proxies whose X-Forwarded-For names the client (Fastify's `trustProxy`: a
   * comma-separated list of addresses or CIDR ranges). Default: none, the peer is the client.
   */
  readonly trustProxy?: string;
  readonly health?: Partial<Omit<HealthSettings, "rpcUrl">>;
  /** How long a verified API key is trusted without a lookup (the revocation delay). Default 2 s. */
  readonly apiKeyCacheMs?: number;
  /** How long after a commit a cached attestation page may still omit its rows. Default 100 ms. */
  readonly listMaxStalenessMs?: number;
  /** The clock of both caches, in ms; default the monotonic clock (`performance.now`). */
  readonly now?: () => number;
}

export type AbasApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  TypeBoxTypeProvider
> & { readonly lastUsed: LastUsedRecorder; readonly lifecycle: Lifecycle };

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
    trustProxy: options.trustProxy ?? false,
    // Every GET route answers HEAD too (its headers alone); the OpenAPI document lists the GETs.
    exposeHeadRoutes: true,
    // Reject unknown query parameters instead of silently dropping them (a typo must not widen a filter).
    ajv: { customOptions: { removeAdditional: false } },
    // While closing, requests on open connections are still served (server.ts drains first).
    return503OnClosing: false,
    // The router's and Node's own refusals are problem documents like every other error.
    frameworkErrors: handleError,
    clientErrorHandler: handleClientError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  const lastUsed = createLastUsedRecorder(options.db, {
    onError: (error) => app.log.warn({ err: error }, "could not record an API key's last use"),
  });
  const rateLimiter = new TokenBucketRateLimiter({
    limit: options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
    windowSeconds: 60,
  });
  const failedKeyLimiter = new TokenBucketRateLimiter({
    limit: options.failedApiKeysPerMinute ?? DEFAULT_FAILED_API_KEYS_PER_MINUTE,
    windowSeconds: 60,
  });

  const apiKeys = createVerifiedApiKeyCache({
    db: options.db,
    maxAgeMs: options.apiKeyCacheMs ?? DEFAULT_API_KEY_CACHE_MS,
    now: options.now,
  });
  const listCache = new ResponseCache(DEFAULT_LIST_CACHE_ENTRIES);
  const listVersion = createDataVersion({
    read: () => readAttestationsVersion(options.db),
    maxStalenessMs: options.listMaxStalenessMs ?? DEFAULT_LIST_MAX_STALENESS_MS,
    now: options.now,
  });

  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
  const lifecycle = createLifecycle();
  app.addHook("onRequest", async (request, reply) => {
    void reply.header("x-request-id", request.id);
  });
  // Draining: every answer, also of a request that started before, closes its connection, so
  // clients (a load balancer's pooled connections) reconnect elsewhere and the listener can close.
  app.addHook("onSend", async (_request, reply) => {
    if (lifecycle.draining) void reply.header("connection", "close");
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
        license: { name: "Apache-2.0", identifier: "Apache-2.0" },
        description:
          "Read-only access to indexed Agent Behavior Attestation Service data: attestations, agents and their " +
          "reputation, indexer health. Errors are RFC 9457 problem documents with a numeric ABAS code.",
      },
      // Relative: the document describes the server that serves it.
      servers: [{ url: "/", description: "The server that serves this document" }],
      components: { securitySchemes: SECURITY_SCHEMES },
      tags: [
        { name: "attestations", description: "Attested agent actions" },
        { name: "agents", description: "Agents, their policies, metrics and reputation" },
        { name: "service", description: "Health, readiness, ping and this document (no API key needed)" },
        {
          name: "actions",
          description:
            "Share links of receipts as Solana Actions, served with the web app (no API key needed)",
        },
      ],
    },
  });

  await app.register(
    async (api) => {
      await api.register(publicRoutes, {
        db: options.db,
        dialect: options.dialect,
        health: { rpcUrl: options.rpcUrl, ...DEFAULT_HEALTH_SETTINGS, ...options.health },
        lifecycle,
      });
      await api.register(async (protectedApi) => {
        protectedApi.addHook(
          "onRequest",
          createApiKeyAuthHook({ apiKeys, rateLimiter, failedKeyLimiter, lastUsed }),
        );
        await protectedApi.register(attestationRoutes, {
          db: options.db,
          listCache,
          listVersion,
        });
        await protectedApi.register(agentRoutes, { db: options.db });
      });
    },
    { prefix: API_PREFIX },
  );

  return Object.assign(app, { lastUsed, lifecycle });
}
