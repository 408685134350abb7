/** What every route of the web plugin shares: the database, the ledger, the clock and the assets. */
import type { Database, Dialect } from "@abas/db";
import type { FastifyRequest } from "fastify";
import type { Kysely } from "kysely";

import type { WebAssets } from "./assets/web-assets.js";
import { withWebTables, type WebDatabase } from "./auth/web-tables.js";
import type { LedgerIdentity } from "./ledger/ledger-identity.js";
import type { LedgerContext } from "./ledger/verify-record.js";

export interface WebPluginOptions {
  readonly db: Kysely<Database>;
  readonly dialect: Dialect;
  /** The ledger's JSON-RPC node: every verification the pages show is computed from it. */
  readonly rpcUrl: string;
  /** The ABAS program; default the local ledger's (`LOCAL_PROGRAM_ID`). */
  readonly programId?: string;
  /**
   * The public origin, e.g. `https://abas.example.com`, when the server sits behind a proxy: the
   * share link's absolute URLs, the Sign-In With Solana domain and Secure cookies follow it.
   * Default: the request's own scheme and Host header.
   */
  readonly publicUrl?: string;
  /** How long a signed-in session lasts; default 12 hours. */
  readonly sessionTtlSeconds?: number;
  /** How long a sign-in nonce can be redeemed; default 5 minutes. */
  readonly signInTtlSeconds?: number;
  /** The clock of sessions and nonces (unix ms); tests move it. Default `Date.now`. */
  readonly now?: () => number;
}

export interface WebContext {
  readonly db: Kysely<Database>;
  readonly webDb: WebDatabase;
  readonly dialect: Dialect;
  readonly ledger: LedgerContext;
  readonly publicUrl: URL | undefined;
  readonly sessionTtlMs: number;
  readonly signInTtlMs: number;
  readonly now: () => number;
  readonly ledgerIdentity: () => Promise<LedgerIdentity>;
  readonly assets: WebAssets;
}

export function createWebContext(
  options: WebPluginOptions & { programId: string },
  parts: { assets: WebAssets; ledgerIdentity: () => Promise<LedgerIdentity> },
): WebContext {
  return {
    db: options.db,
    webDb: withWebTables(options.db),
    dialect: options.dialect,
    ledger: { rpcUrl: options.rpcUrl, programId: options.programId },
    publicUrl: options.publicUrl === undefined ? undefined : new URL(options.publicUrl),
    sessionTtlMs: (options.sessionTtlSeconds ?? 12 * 60 * 60) * 1000,
    signInTtlMs: (options.signInTtlSeconds ?? 5 * 60) * 1000,
    now: options.now ?? Date.now,
    ledgerIdentity: parts.ledgerIdentity,
    assets: parts.assets,
  };
}

/** `https://abas.example.com`: the public URL's origin, or the request's scheme and host. */
export function originOf(context: WebContext, request: FastifyRequest): string {
  return context.publicUrl?.origin ?? `${request.protocol}://${request.host}`;
}

/** The host (and port) a Sign-In With Solana message must name. */
export function domainOf(context: WebContext, request: FastifyRequest): string {
  return context.publicUrl?.host ?? request.host;
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

/** An AbasError from the packages below (@abas/db): its message is written for the user. */
export function isAbasErrorLike(error: unknown): error is Error & { context: { __code: number } } {
  return (
    error instanceof Error &&
    error.name === "AbasError" &&
    typeof (error as { context?: { __code?: unknown } }).context?.__code === "number"
  );
}
