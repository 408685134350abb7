/**
 * The one place errors become responses: ABAS_API errors keep their status and message, schema
 * validation failures become 400s naming the parameter, other client errors keep their status,
 * and anything else is a 500 whose details stay in the log.
 */
import {
  ABAS_API__INTERNAL_ERROR,
  ABAS_API__INVALID_CURSOR,
  ABAS_API__INVALID_PARAMETER,
  ABAS_API__MALFORMED_REQUEST,
  ABAS_API__ROUTE_NOT_FOUND,
  isAbasError,
} from "@abas/errors";
import type { FastifyError, FastifyReply, FastifyRequest, FastifySchemaValidationError } from "fastify";

import { buildProblem, httpStatusOf, PROBLEM_CONTENT_TYPE, type ProblemDocument } from "./problem.js";
import { ATTESTATION_ID_PATTERN, TIME_PATTERN } from "./schemas/attestation.js";
import { ADDRESS_PATTERN } from "./schemas/common.js";

/** Reasons a user can act on, by the pattern that failed (a regular expression alone says little). */
const PATTERN_REASONS: Record<string, string> = {
  [ADDRESS_PATTERN]: "must be a base58 public key or address (32 to 44 characters)",
  [TIME_PATTERN]: "must be unix seconds or an ISO 8601 date or date-time, such as 2026-11-21T17:00:00Z",
  [ATTESTATION_ID_PATTERN]:
    "must be an attestation id (an address or <batch address>:<index>) or a transaction signature",
};

const TYPE_NAMES: Record<string, string> = {
  integer: "an integer",
  number: "a number",
  boolean: "true or false",
  string: "text",
};

function describeValidationFailure(
  failure: FastifySchemaValidationError,
  context: string,
): {
  parameter: string;
  reason: string;
} {
  const params = failure.params as Record<string, unknown>;
  if (failure.keyword === "additionalProperties") {
    return { parameter: String(params.additionalProperty), reason: "is not a parameter of this route" };
  }
  if (failure.keyword === "required")
    return { parameter: String(params.missingProperty), reason: "is required" };
  const parameter = failure.instancePath.split("/")[1] || context;
  if (failure.keyword === "enum" && Array.isArray(params.allowedValues)) {
    return { parameter, reason: `must be one of ${params.allowedValues.join(", ")}` };
  }
  if (failure.keyword === "type")
    return { parameter, reason: `must be ${TYPE_NAMES[String(params.type)] ?? params.type}` };
  const patternReason = failure.keyword === "pattern" ? PATTERN_REASONS[String(params.pattern)] : undefined;
  if (patternReason !== undefined) return { parameter, reason: patternReason };
  return { parameter, reason: failure.message ?? "is invalid" };
}

export function toProblem(error: FastifyError, requestId: string): ProblemDocument {
  const thrown: unknown = error;
  if (isAbasError(thrown) && httpStatusOf(thrown.code) !== undefined) {
    return buildProblem(thrown.code, thrown.context, requestId);
  }
  if (error.validation !== undefined && error.validation.length > 0) {
    const { parameter, reason } = describeValidationFailure(
      error.validation[0]!,
      error.validationContext ?? "request",
    );
    return parameter === "cursor"
      ? buildProblem(
          ABAS_API__INVALID_CURSOR,
          { reason: "not base64url text of the expected length" },
          requestId,
        )
      : buildProblem(ABAS_API__INVALID_PARAMETER, { parameter, reason }, requestId);
  }
  // Fastify's own client errors (bad URL encoding, unsupported media type, ...) keep their status.
  if (typeof error.statusCode === "number" && error.statusCode >= 400 && error.statusCode < 500) {
    return buildProblem(ABAS_API__MALFORMED_REQUEST, { reason: error.message }, requestId, error.statusCode);
  }
  return buildProblem(ABAS_API__INTERNAL_ERROR, { requestId }, requestId);
}

export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const problem = toProblem(error, request.id);
  if (problem.status >= 500) request.log.error({ err: error }, "request failed");
  else request.log.info({ code: problem.code, problem: problem.name }, "request refused");
  void reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(problem);
}

export function handleNotFound(request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split("?")[0]!.slice(0, 200);
  const problem = buildProblem(ABAS_API__ROUTE_NOT_FOUND, { method: request.method, path }, request.id);
  void reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(problem);
}
