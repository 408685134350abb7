/**
 * The API key gate of every non-public route: reads the key from `Authorization: Bearer <key>` or
 * `X-API-Key`, verifies it, applies the key's rate limit, and records its use. It runs first
 * (onRequest), so an unauthenticated caller learns nothing about parameters or data. A client
 * address whose keys were refused too often (each refusal cost a query) waits before the next try.
 */
import {
  ABAS_API__API_KEY_MALFORMED,
  ABAS_API__API_KEY_MISSING,
  ABAS_API__API_KEY_REVOKED,
  ABAS_API__API_KEY_UNKNOWN,
  ABAS_API__RATE_LIMITED,
  ABAS_API__TOO_MANY_FAILED_API_KEYS,
  AbasError,
  isAbasError,
} from "@abas/errors";
import type { LastUsedRecorder } from "@abas/db";
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from "fastify";
import type { IncomingHttpHeaders } from "node:http";

import type { RateLimitDecision, TokenBucketRateLimiter } from "./rate-limiter.js";
import type { VerifiedApiKeyCache } from "./verified-api-key-cache.js";

const BEARER = /^Bearer +(\S+) *$/i;

function malformed(reason: string): AbasError {
  return new AbasError(ABAS_API__API_KEY_MALFORMED, { reason });
}

/** The key the request presents; throws when there is none or the headers are ill-formed. */
export function readPresentedApiKey(headers: IncomingHttpHeaders): string {
  const authorization = headers.authorization;
  const apiKeyHeader = headers["x-api-key"];
  if (authorization === undefined && apiKeyHeader === undefined)
    throw new AbasError(ABAS_API__API_KEY_MISSING);
  if (Array.isArray(apiKeyHeader)) throw malformed("send one X-API-Key header");
  let fromAuthorization: string | undefined;
  if (authorization !== undefined) {
    const match = BEARER.exec(authorization);
    if (!match) throw malformed('the Authorization header must be "Bearer <key>"');
    fromAuthorization = match[1];
  }
  const fromApiKeyHeader = apiKeyHeader?.trim();
  if (
    fromAuthorization !== undefined &&
    fromApiKeyHeader !== undefined &&
    fromAuthorization !== fromApiKeyHeader
  ) {
    throw malformed("Authorization and X-API-Key carry different keys");
  }
  const key = fromAuthorization ?? fromApiKeyHeader;
  if (!key) throw malformed("the key is empty");
  return key;
}

/** draft-ietf-httpapi-ratelimit-headers fields, on successes and refusals alike. */
export function setRateLimitHeaders(
  reply: FastifyReply,
  decision: RateLimitDecision,
  windowSeconds: number,
): void {
  reply.header("ratelimit-policy", `${decision.limit};w=${windowSeconds}`);
  reply.header("ratelimit-limit", decision.limit);
  reply.header("ratelimit-remaining", decision.remaining);
  reply.header("ratelimit-reset", decision.resetSeconds);
}

export interface ApiKeyAuthDependencies {
  /** Verifies keys, trusting a verification for a bounded time. */
  readonly apiKeys: VerifiedApiKeyCache;
  /** Requests per API key. */
  readonly rateLimiter: TokenBucketRateLimiter;
  /** Refused keys (unknown or revoked: each cost a query) per client address. */
  readonly failedKeyLimiter: TokenBucketRateLimiter;
  readonly lastUsed: LastUsedRecorder;
}

/** Refusals that cost a database lookup; a missing or malformed key is refused without one. */
const LOOKED_UP_REFUSALS = [ABAS_API__API_KEY_UNKNOWN, ABAS_API__API_KEY_REVOKED] as const;

function refuseWhenLimited(
  reply: FastifyReply,
  decision: RateLimitDecision,
  limiter: TokenBucketRateLimiter,
  code: typeof ABAS_API__RATE_LIMITED | typeof ABAS_API__TOO_MANY_FAILED_API_KEYS,
): void {
  if (decision.allowed) return;
  reply.header("retry-after", decision.retryAfterSeconds);
  throw new AbasError(code, {
    limit: decision.limit,
    windowSeconds: limiter.windowSeconds,
    retryAfterSeconds: decision.retryAfterSeconds,
  });
}

export function createApiKeyAuthHook(deps: ApiKeyAuthDependencies): onRequestAsyncHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const presented = readPresentedApiKey(request.headers);
    const client = request.ip;
    refuseWhenLimited(
      reply,
      deps.failedKeyLimiter.peek(client),
      deps.failedKeyLimiter,
      ABAS_API__TOO_MANY_FAILED_API_KEYS,
    );
    let key;
    try {
      key = await deps.apiKeys.verify(presented);
    } catch (error) {
      if (LOOKED_UP_REFUSALS.some((code) => isAbasError(error, code))) deps.failedKeyLimiter.take(client);
      throw error;
    }
    const decision = deps.rateLimiter.take(key.id);
    setRateLimitHeaders(reply, decision, deps.rateLimiter.windowSeconds);
    refuseWhenLimited(reply, decision, deps.rateLimiter, ABAS_API__RATE_LIMITED);
    deps.lastUsed.record(key.id);
  };
}
