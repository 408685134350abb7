/** Routes without an API key: health, a bare ping, and the OpenAPI document. */
import type { Database, Dialect } from "@abas/db";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Kysely } from "kysely";

import { checkHealth, type HealthSettings } from "../health.js";
import { problemResponses, PUBLIC_SECURITY } from "../schemas/common.js";
import { HealthReport, Ping } from "../schemas/health.js";

export interface PublicRouteOptions {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  readonly health: HealthSettings;
}

export const publicRoutes: FastifyPluginAsyncTypebox<PublicRouteOptions> = async (app, options) => {
  app.get(
    "/health",
    {
      schema: {
        operationId: "getHealth",
        summary: "Indexer and ledger synchronisation: 200 when healthy, 503 naming each cause when not",
        tags: ["service"],
        security: PUBLIC_SECURITY,
        response: {
          200: HealthReport,
          503: { ...HealthReport, description: "Unhealthy: `causes` names why" },
          ...problemResponses([500]),
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
    "/ping",
    {
      schema: {
        operationId: "ping",
        summary: "Answers without touching the database (a baseline for benchmarks and probes)",
        tags: ["service"],
        security: PUBLIC_SECURITY,
        response: { 200: Ping },
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
      },
    },
    async () => app.swagger(),
  );
};
