/**
 * The one place errors become responses: ABAS_API errors keep their status and message, schema
 * validation failures become 400s naming the parameter, the framework's own refusals keep their
 * status with a fixed reason (never the URL or a header they came from), and anything else is a
 * 500 whose details stay in the log. A 401 names the scheme to use in WWW-Authenticate.
 */
import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";

import { ADDRESS_PATTERN, ATTESTATION_ID_PATTERN, TIME_PATTERN, type ApiProblem } from "@abas/api-contract";
import {
  ABAS_API__INTERNAL_ERROR,
  ABAS_API__INVALID_CURSOR,
  ABAS_API__API_KEY_MISSING,
  ABAS_API__INVALID_PARAMETER,
  ABAS_API__MALFORMED_REQUEST,
  ABAS_API__ROUTE_NOT_FOUND,
  isAbasError,
} from "@abas/errors";
import type { FastifyError, FastifyReply, FastifyRequest, FastifySchemaValidationError } from "fastify";

import { buildProblem, httpStatusOf, PROBLEM_CONTENT_TYPE } from "./problem.js";

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

/** Reasons for the framework's refusals, by Fastify error code. */
const FRAMEWORK_REASONS: Record<string, string> = {
  FST_ERR_BAD_URL: "the URL holds a malformed percent-encoding",
  FST_ERR_MAX_PARAM_LENGTH: "a path segment is longer than 100 characters",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "this route takes no request body of that media type",
  FST_ERR_CTP_BODY_TOO_LARGE: "the request body is too large",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "the Content-Length does not match the body",
  FST_ERR_CTP_EMPTY_JSON_BODY: "the JSON body is empty",
  FST_ERR_CTP_INVALID_JSON_BODY: "the body is not valid JSON",
};

/** RFC 6750: a missing key only names the scheme; a refused one says the token is invalid. */
function wwwAuthenticateOf(problem: ApiProblem): string | undefined {
  if (problem.status !== 401) return undefined;
  return problem.code === ABAS_API__API_KEY_MISSING
    ? 'Bearer realm="abas"'
    : 'Bearer realm="abas", error="invalid_token"';
}

export function toProblem(error: FastifyError, requestId: string): ApiProblem {
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
  // Fastify's own client errors keep their status; their messages quote the request, so not those.
  if (typeof error.statusCode === "number" && error.statusCode >= 400 && error.statusCode < 500) {
    const reason =
      FRAMEWORK_REASONS[error.code] ?? (STATUS_CODES[error.statusCode] ?? "refused").toLowerCase();
    return buildProblem(ABAS_API__MALFORMED_REQUEST, { reason }, requestId, error.statusCode);
  }
  return buildProblem(ABAS_API__INTERNAL_ERROR, { requestId }, requestId);
}

export function handleError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const problem = toProblem(error, request.id);
  if (problem.status >= 500) request.log.error({ err: error }, "request failed");
  else request.log.info({ code: problem.code, problem: problem.name }, "request refused");
  const challenge = wwwAuthenticateOf(problem);
  if (challenge !== undefined) void reply.header("www-authenticate", challenge);
  void reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(problem);
}

/** Node's refusals before Fastify sees a request (headers too large, not HTTP), as problem documents. */
export function handleClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection, or one already answered, has nobody left to tell.
  if (error.code === "ECONNRESET" || socket.destroyed || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [431, "the request headers are larger than 16 KiB"]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "the request did not arrive in time"]
        : [400, "the request is not valid HTTP/1.1"];
  const body = JSON.stringify(buildProblem(ABAS_API__MALFORMED_REQUEST, { reason }, randomUUID(), status));
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n` +
      `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

export function handleNotFound(request: FastifyRequest, reply: FastifyReply): void {
  const path = request.url.split("?")[0]!.slice(0, 200);
  const problem = buildProblem(ABAS_API__ROUTE_NOT_FOUND, { method: request.method, path }, request.id);
  void reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(problem);
}
