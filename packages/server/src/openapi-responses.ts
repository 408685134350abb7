/** What the OpenAPI document says beyond the contract's shapes: problem responses and security. */
import { ApiProblem } from "@abas/api-contract";
import { Type } from "@sinclair/typebox";

const PROBLEM_DESCRIPTIONS: Record<number, string> = {
  400: "A parameter is invalid, or the request itself is malformed",
  401: "The API key is missing, malformed, unknown or revoked",
  404: "Nothing matches the id",
  429: "The API key's rate limit is reached; see Retry-After",
  500: "An unexpected server error (details only in the server's log)",
};

/** Problem responses for OpenAPI, by status. */
export function problemResponses(statuses: readonly number[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: PROBLEM_DESCRIPTIONS[status] ?? "A problem",
        content: { "application/problem+json": { schema: ApiProblem } },
      },
    ]),
  );
}

/** A conditional GET whose If-None-Match names the current ETag: no body. */
export const NOT_MODIFIED_RESPONSE = Type.Null({
  description: "Not modified: the If-None-Match header names the current ETag of this page",
});

/** Routes that need an API key: either header works. */
type SecurityRequirements = { [scheme: string]: string[] }[];
export const API_KEY_SECURITY: SecurityRequirements = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
export const PUBLIC_SECURITY: SecurityRequirements = [];

export const SECURITY_SCHEMES = {
  bearerAuth: {
    type: "http",
    scheme: "bearer",
    description: "An API key (`abas_…`) as a bearer token: `Authorization: Bearer <key>`",
  },
  apiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key", description: "An API key (`abas_…`)" },
} as const;
