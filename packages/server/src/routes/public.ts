/** Routes without an API key: health, readiness, a bare ping, and the OpenAPI document. */
import { ApiHealth, ApiPing, ApiReadiness } from "@abas/api-contract";
import type { Database, Dialect } from "@abas/db";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { Kysely } from "kysely";

import { checkHealth, checkReadiness, type HealthSettings } from "../health.js";
import type { Lifecycle } from "../lifecycle.js";
import { problemResponses, PUBLIC_SECURITY } from "../openapi-responses.js";

export interface PublicRouteOptions {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  readonly health: HealthSettings;
  readonly lifecycle: Lifecycle;
}

export const publicRoutes: FastifyPluginAsyncTypebox<PublicRouteOptions> = async (app, options) => {
  app.get(
    "/health",
    {
      schema: {
        operationId: "getHealth",
        summary: "The service's health: 200 when fresh ledger data is served, 503 naming each cause when not",
        description:
          "Checks the database, the ledger (getSlot) and the indexer's progress and agreement with the ledger. " +
          "For monitoring; load balancers should route on /ready, which leaves out what every replica shares.",
        tags: ["service"],
        security: PUBLIC_SECURITY,
        response: {
          200: ApiHealth,
          503: { ...ApiHealth, description: "Unhealthy: `causes` names why" },
          ...problemResponses([400, 500]),
        },
      },
    },
    async (_request, reply) => {
      const report = await checkHealth(options.db, options.dialect, options.health);
      void reply.header("cache-control", "no-store");
      return reply.code(report.status === "ok" ? 200 : 503).send(report);
    },
  );

  app.get(
    "/ready",
    {
      schema: {
        operationId: "getReadiness",
        summary:
          "Whether this replica should get requests: 200 when ready, 503 while shutting down or without its database",
        description:
          "For load balancers. Turns 503 as soon as the server starts draining, before it stops listening. " +
          "The ledger and the indexer are not checked: they are shared by every replica (see /health).",
        tags: ["service"],
        security: PUBLIC_SECURITY,
        response: {
          200: ApiReadiness,
          503: { ...ApiReadiness, description: "Not ready: `causes` names why" },
          ...problemResponses([400, 500]),
        },
      },
    },
    async (_request, reply) => {
      const report = await checkReadiness(options.db, {
        draining: options.lifecycle.draining,
        timeoutMs: options.health.timeoutMs,
      });
      void reply.header("cache-control", "no-store");
      return reply.code(report.status === "ready" ? 200 : 503).send(report);
    },
  );

  app.get(
    "/ping",
    {
      schema: {
        operationId: "ping",
        summary: "Answers without touching the database (a baseline for benchmarks and probes)",
        tags: ["service"],
        security: PUBLIC_SECURITY,
        response: { 200: ApiPing, ...problemResponses([400, 500]) },
      },
    },
    async () => ({ ok: true as const }),
  );

  app.get(
    "/openapi.json",
    {
      schema: {
        operationId: "getOpenApiDocument",
        summary: "This API's OpenAPI 3.1 document, generated from the schemas that validate requests",
        tags: ["service"],
        security: PUBLIC_SECURITY,
        response: {
          200: Type.Object({}, { additionalProperties: true, description: "An OpenAPI 3.1 document" }),
          ...problemResponses([400, 500]),
        },
      },
    },
    async () => app.swagger(),
  );
};
