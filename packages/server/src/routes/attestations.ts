import {
  ApiAttestationLookup,
  ApiAttestationPage,
  AttestationIdParams,
  ListAttestationsQuery,
} from "@abas/api-contract";
import { ABAS_API__ATTESTATION_NOT_FOUND, AbasError } from "@abas/errors";
import { getAttestation, listAttestations, type Database } from "@abas/db";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Kysely } from "kysely";

import { API_KEY_SECURITY, problemResponses } from "../openapi-responses.js";
import { assertTimeRange, parseTimeParameter } from "../time-parameter.js";

export const attestationRoutes: FastifyPluginAsyncTypebox<{ db: Kysely<Database> }> = async (app, { db }) => {
  app.get(
    "/attestations",
    {
      schema: {
        operationId: "listAttestations",
        summary: "List attestations, newest first, with cursor pagination and filters",
        tags: ["attestations"],
        security: API_KEY_SECURITY,
        querystring: ListAttestationsQuery,
        response: { 200: ApiAttestationPage, ...problemResponses([400, 401, 429, 500]) },
      },
    },
    async (request) => {
      const { since, until, ...filters } = request.query;
      const sinceSeconds = since === undefined ? undefined : parseTimeParameter("since", since);
      const untilSeconds = until === undefined ? undefined : parseTimeParameter("until", until);
      assertTimeRange(sinceSeconds, untilSeconds);
      return listAttestations(db, { ...filters, since: sinceSeconds, until: untilSeconds });
    },
  );

  app.get(
    "/attestations/:id",
    {
      schema: {
        operationId: "getAttestation",
        summary: "One attestation by id, or the attestations a transaction recorded",
        tags: ["attestations"],
        security: API_KEY_SECURITY,
        params: AttestationIdParams,
        response: { 200: ApiAttestationLookup, ...problemResponses([400, 401, 404, 429, 500]) },
      },
    },
    async (request) => {
      const lookup = await getAttestation(db, request.params.id);
      if (lookup === undefined)
        throw new AbasError(ABAS_API__ATTESTATION_NOT_FOUND, { id: request.params.id });
      return lookup;
    },
  );
};
