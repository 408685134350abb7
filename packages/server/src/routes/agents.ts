import { AgentIdParams, ApiAgent } from "@abas/api-contract";
import { ABAS_API__AGENT_NOT_FOUND, AbasError } from "@abas/errors";
import { getAgent, type Database } from "@abas/db";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Kysely } from "kysely";

import { API_KEY_SECURITY, problemResponses } from "../openapi-responses.js";

export const agentRoutes: FastifyPluginAsyncTypebox<{ db: Kysely<Database> }> = async (app, { db }) => {
  app.get(
    "/agents/:id",
    {
      schema: {
        operationId: "getAgent",
        summary: "One agent: status, policy, metrics and reputation score",
        tags: ["agents"],
        security: API_KEY_SECURITY,
        params: AgentIdParams,
        response: { 200: ApiAgent, ...problemResponses([400, 401, 404, 429, 500]) },
      },
    },
    async (request) => {
      const profile = await getAgent(db, request.params.id);
      if (profile === undefined) throw new AbasError(ABAS_API__AGENT_NOT_FOUND, { agent: request.params.id });
      return profile;
    },
  );
};
