import {
  ApiAttestationLookup,
  ApiAttestationPage,
  AttestationIdParams,
  ListAttestationsQuery,
} from "@abas/api-contract";
import { ABAS_API__ATTESTATION_NOT_FOUND, ABAS_API__INVALID_PARAMETER, AbasError } from "@abas/errors";
import { getAttestation, listAttestationsJson, type Database } from "@abas/db";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Kysely } from "kysely";

import type { DataVersion } from "../data-version.js";
import { API_KEY_SECURITY, NOT_MODIFIED_RESPONSE, problemResponses } from "../openapi-responses.js";
import { ifNoneMatchHits, type ResponseCache } from "../response-cache.js";
import { assertTimeRange, parseTimeParameter } from "../time-parameter.js";

/**
 * The page size as written: decimal digits. The schema's coercion reads any text JavaScript reads
 * as a number ("0x14", " 20", "1e1", "+5", "5.0"), and a mistyped value must not pass for a number.
 */
const DECIMAL_DIGITS = /^[0-9]+$/;

function assertDecimalLimit(query: unknown): void {
  const { limit } = query as { limit?: unknown };
  if (typeof limit === "string" && !DECIMAL_DIGITS.test(limit)) {
    throw new AbasError(ABAS_API__INVALID_PARAMETER, {
      parameter: "limit",
      reason: "must be an integer written in decimal digits",
    });
  }
}

export interface AttestationRoutesOptions {
  readonly db: Kysely<Database>;
  /** Serialised list pages, valid while `listVersion` is unchanged. */
  readonly listCache: ResponseCache;
  readonly listVersion: DataVersion;
}

export const attestationRoutes: FastifyPluginAsyncTypebox<AttestationRoutesOptions> = async (
  app,
  { db, listCache, listVersion },
) => {
  app.get(
    "/attestations",
    {
      schema: {
        operationId: "listAttestations",
        summary: "List attestations, newest first, with cursor pagination and filters",
        tags: ["attestations"],
        security: API_KEY_SECURITY,
        querystring: ListAttestationsQuery,
        response: {
          200: ApiAttestationPage,
          304: NOT_MODIFIED_RESPONSE,
          ...problemResponses([400, 401, 429, 500]),
        },
      },
      // Before the schema's validation coerces the raw text.
      preValidation: async (request) => assertDecimalLimit(request.query),
    },
    async (request, reply) => {
      const { since, until, ...filters } = request.query;
      const sinceSeconds = since === undefined ? undefined : parseTimeParameter("since", since);
      const untilSeconds = until === undefined ? undefined : parseTimeParameter("until", until);
      assertTimeRange(sinceSeconds, untilSeconds);
      // The version is read before the query, so a cached page is never older than its label.
      const version = await listVersion.current();
      let page = listCache.get(request.url, version);
      if (page === undefined) {
        const body = await listAttestationsJson(db, {
          ...filters,
          since: sinceSeconds,
          until: untilSeconds,
        });
        page = listCache.set(request.url, version, body);
      }
      void reply.header("etag", page.etag).header("cache-control", "private, no-cache");
      if (ifNoneMatchHits(request.headers["if-none-match"], page.etag)) return reply.code(304).send(null);
      // Already JSON bytes: Fastify sends a Buffer as it is.
      return reply.type("application/json; charset=utf-8").send(page.body as unknown as ApiAttestationPage);
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
