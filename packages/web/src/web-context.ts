/** What every route of the web plugin shares: the database, the ledger, the clock and the assets. */
import type { Database, Dialect } from "@abas/db";
import { TokenBucketRateLimiter } from "@abas/server";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Kysely } from "kysely";

import type { WebAssets } from "./assets/web-assets.js";
import type { LedgerIdentity } from "./ledger/ledger-identity.js";
import type { LedgerContext } from "./ledger/verify-record.js";

export type PerMinute = { readonly perClient: number; readonly perServer: number };

export interface WebPluginOptions {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** The ledger's JSON-RPC node: every verification the pages show is computed from it. */
  readonly rpcUrl: string;
  /** The ABAS program; default the local ledger's (`LOCAL_PROGRAM_ID`). */
  readonly programId?: string;
  /**
   * The public origin, e.g. `https://abas.example.com`: the share link's absolute URLs, the
   * Sign-In With Solana domain and Secure cookies follow it, whatever Host a request names.
   * Without it the site answers only requests whose Host is a loopback name (`127.0.0.1`,
   * `localhost`, `[::1]`) with the port they arrived on; any other Host gets 421 (a phishing relay
   * could otherwise have a victim sign in "for" its own domain). Set it whenever the server is
   * reached through anything but loopback.
   */
  readonly publicUrl?: string;
  /** Sign-in challenges per client address and per server process, per minute; default 10 and 600. */
  readonly signInChallengesPerMinute?: PerMinute;
  /**
   * Receipt files checked against the ledger (the receipts page) per client address and per server
   * process, per minute; default 600 and 6,000. Each check costs the ledger a few requests.
   */
  readonly receiptChecksPerMinute?: PerMinute;
  /**
   * Receipt cards drawn (the share link's icon, a PNG of tens of milliseconds of CPU) per client
   * address and per server process, per minute; default 120 and 1,200. A card already drawn is
   * sent from memory and not counted.
   */
  readonly receiptCardsPerMinute?: PerMinute;
  /** How long a signed-in session lasts; default 12 hours. */
  readonly sessionTtlSeconds?: number;
  /** How long a sign-in nonce can be redeemed; default 5 minutes. */
  readonly signInTtlSeconds?: number;
  /** The clock of sessions and nonces (unix ms); tests move it. Default `Date.now`. */
  readonly now?: () => number;
}

export interface WebContext {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  readonly ledger: LedgerContext;
  readonly publicUrl: URL | undefined;
  readonly sessionTtlMs: number;
  readonly signInTtlMs: number;
  readonly now: () => number;
  readonly ledgerIdentity: () => Promise<LedgerIdentity>;
  readonly assets: WebAssets;
  /** Signs the sign-in cookie (shared by replicas through the database). */
  readonly signingKey: Buffer;
  /** Sign-in challenges: each stores a nonce row, so they are limited per client and per process. */
  readonly challengeLimits: RequestLimits;
  /** Receipt checks: each costs the ledger requests. */
  readonly receiptCheckLimits: RequestLimits;
  /** Receipt cards drawn: each costs tens of milliseconds of CPU. */
  readonly receiptCardLimits: RequestLimits;
}

/** One limit per client address and one for the server process. */
export interface RequestLimits {
  readonly perClient: TokenBucketRateLimiter;
  readonly perServer: TokenBucketRateLimiter;
}

function requestLimits({ perClient, perServer }: PerMinute): RequestLimits {
  return {
    perClient: new TokenBucketRateLimiter({ limit: perClient, windowSeconds: 60 }),
    perServer: new TokenBucketRateLimiter({ limit: perServer, windowSeconds: 60 }),
  };
}

/**
 * Takes one request of the client's allowance and of the server's; past either, the request is
 * refused: 429 with Retry-After, `what` saying what is limited ("sign-in attempts").
 */
export function takeAllowance(
  limits: RequestLimits,
  request: FastifyRequest,
  reply: FastifyReply,
  what: string,
): void {
  // The server's allowance is taken only for a request the client's allows: a client refused for
  // its own flood must not use up what every other client shares.
  for (const take of [() => limits.perClient.take(request.ip), () => limits.perServer.take("*")]) {
    const decision = take();
    if (decision.allowed) continue;
    void reply.header("retry-after", decision.retryAfterSeconds);
    throw new HttpError(
      429,
      `Too many ${what}: try again in ${decision.retryAfterSeconds} s.`,
      "rate-limited",
    );
  }
}

export function createWebContext(
  options: WebPluginOptions & { programId: string },
  parts: { assets: WebAssets; ledgerIdentity: () => Promise<LedgerIdentity>; signingKey: Buffer },
): WebContext {
  return {
    db: options.db,
    dialect: options.dialect,
    ledger: { rpcUrl: options.rpcUrl, programId: options.programId },
    publicUrl: options.publicUrl === undefined ? undefined : new URL(options.publicUrl),
    sessionTtlMs: (options.sessionTtlSeconds ?? 12 * 60 * 60) * 1000,
    signInTtlMs: (options.signInTtlSeconds ?? 5 * 60) * 1000,
    now: options.now ?? Date.now,
    ledgerIdentity: parts.ledgerIdentity,
    assets: parts.assets,
    signingKey: parts.signingKey,
    challengeLimits: requestLimits(options.signInChallengesPerMinute ?? { perClient: 10, perServer: 600 }),
    receiptCheckLimits: requestLimits(options.receiptChecksPerMinute ?? { perClient: 600, perServer: 6_000 }),
    receiptCardLimits: requestLimits(options.receiptCardsPerMinute ?? { perClient: 120, perServer: 1_200 }),
  };
}

const LOOPBACK_HOSTNAME = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/i;

/** Whether `host` (a Host header) is a loopback name with the port the request arrived on. */
function isOwnLoopbackHost(host: string, localPort: number | undefined): boolean {
  let url: URL;
  try {
    url = new URL(`http://${host}`);
  } catch {
    return false;
  }
  return (
    `${url.hostname}${url.port === "" ? "" : `:${url.port}`}` === host.toLowerCase() &&
    LOOPBACK_HOSTNAME.test(url.hostname) &&
    (url.port === "" ? "80" : url.port) === String(localPort)
  );
}

/**
 * `https://abas.example.com`: the configured public URL's origin; without one, the request's own
 * scheme and Host when that Host is this server's loopback address. Anything else is refused
 * (421): a Host header is the client's to choose, and a sign-in domain or link must not be.
 */
export function originOf(context: WebContext, request: FastifyRequest): string {
  if (context.publicUrl !== undefined) return context.publicUrl.origin;
  const host = request.host;
  if (isOwnLoopbackHost(host, request.socket.localPort)) return `${request.protocol}://${host}`;
  throw new HttpError(
    421,
    `This server has no public URL, so it answers only at its loopback address, not for ` +
      `"${host.slice(0, 100)}": open it at http://127.0.0.1:${request.socket.localPort ?? ""}, or give it PUBLIC_URL.`,
    "unknown-host",
  );
}

/** The host (and port) a Sign-In With Solana message must name. */
export function domainOf(context: WebContext, request: FastifyRequest): string {
  return new URL(originOf(context, request)).host;
}

export function isHttps(context: WebContext, request: FastifyRequest): boolean {
  return context.publicUrl !== undefined
    ? context.publicUrl.protocol === "https:"
    : request.protocol === "https";
}

/** An error a route answers with its status and a message meant for the user. */
export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** The `code` of a refusal the framework made itself (a malformed request, a body too large…). */
const REFUSAL_CODES: Record<number, string> = {
  400: "bad-request",
  404: "not-found",
  405: "method-not-allowed",
  413: "body-too-large",
  414: "url-too-long",
  415: "unsupported-media-type",
  429: "rate-limited",
  431: "headers-too-large",
};

/** A refused request: what it is answered, `{ message, code }` (`{ message }` without a code). */
export interface Refusal {
  readonly statusCode: number;
  readonly body: { readonly message: string; readonly code?: string };
}

/**
 * The refusal `error` stands for: an HttpError's status, message and code, or a 4xx the framework
 * raised with the code of its status; undefined for a fault of the server.
 */
export function refusalOf(error: Error & { statusCode?: unknown }): Refusal | undefined {
  if (error instanceof HttpError) {
    const { statusCode, message, code } = error;
    return { statusCode, body: code === undefined ? { message } : { message, code } };
  }
  const { statusCode } = error;
  if (typeof statusCode !== "number" || statusCode < 400 || statusCode >= 500) return undefined;
  return { statusCode, body: { message: error.message, code: REFUSAL_CODES[statusCode] ?? "refused" } };
}

/** An AbasError from the packages below (@abas/db): its message is written for the user. */
export function isAbasErrorLike(error: unknown): error is Error & { context: { __code: number } } {
  return (
    error instanceof Error &&
    error.name === "AbasError" &&
    typeof (error as { context?: { __code?: unknown } }).context?.__code === "number"
  );
}
