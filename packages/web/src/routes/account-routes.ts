/**
 * Sign-In With Solana and the operator's API keys (/app/api-keys).
 *
 * Before sign-in, the page sets a sign-in cookie and repeats its value in the page; the challenge
 * and verify requests must send it back in X-CSRF-Token, and the nonce is bound to it, so another
 * site can neither start a sign-in in the visitor's browser nor sign the visitor in to its own
 * wallet. After sign-in, the session (a database row; the cookie holds a random token) carries a
 * synchronizer token that every state-changing request must send in X-CSRF-Token.
 * Cookies are HttpOnly, SameSite=Strict, scoped to /app, and Secure when the site is served over https.
 */
import { createApiKey, listApiKeys, revokeApiKey } from "@abas/db";
import { ABAS_API__TOO_MANY_API_KEYS } from "@abas/errors";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";

import { findSession, closeSession, openSession, type Session } from "../auth/sessions.js";
import { isSignedToken, sameSecret, sha256Hex, signedToken } from "../auth/secrets.js";
import {
  completeSignIn,
  issueSignInChallenge,
  SignInError,
  type SignInExpectations,
} from "../auth/sign-in.js";
import { keysTable, signedInPage, signedOutPage } from "../pages/api-keys-page.js";
import { LedgerIdentityUnavailable } from "../ledger/ledger-identity.js";
import {
  domainOf,
  HttpError,
  isAbasErrorLike,
  isHttps,
  originOf,
  takeAllowance,
  type WebContext,
} from "../web-context.js";
import { sendPage } from "./page-routes.js";

export const SESSION_COOKIE = "abas_session";
export const SIGN_IN_COOKIE = "abas_sign_in";
export const CSRF_HEADER = "x-csrf-token";
const COOKIE_PATH = "/app";
const SIGN_IN_COOKIE_MAX_AGE_SECONDS = 60 * 60;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

interface SignedIn {
  readonly token: string;
  readonly session: Session;
}

function cookieOptions(context: WebContext, request: FastifyRequest, maxAgeSeconds: number) {
  return {
    path: COOKIE_PATH,
    httpOnly: true,
    sameSite: "strict" as const,
    secure: isHttps(context, request),
    maxAge: maxAgeSeconds,
  };
}

async function signedInOf(context: WebContext, request: FastifyRequest): Promise<SignedIn | undefined> {
  const token = request.cookies[SESSION_COOKIE];
  if (!token) return undefined;
  const session = await findSession(context.db, token, context.now());
  return session === undefined ? undefined : { token, session };
}

/** The X-CSRF-Token header must be `expected`; and a browser's Origin, when sent, must be this site. */
function checkCsrf(context: WebContext, request: FastifyRequest, expected: string): void {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== originOf(context, request)) {
    throw new HttpError(403, `Cross-site request refused: it comes from ${origin}.`, "cross-site");
  }
  const presented = request.headers[CSRF_HEADER];
  if (typeof presented !== "string" || presented.length === 0) {
    throw new HttpError(
      403,
      "Missing CSRF token: send the page's token in the X-CSRF-Token header (reload the page).",
      "csrf-missing",
    );
  }
  if (!sameSecret(presented, expected)) {
    throw new HttpError(403, "Invalid CSRF token: reload the page and try again.", "csrf-invalid");
  }
}

async function requireSession(context: WebContext, request: FastifyRequest): Promise<SignedIn> {
  const signedIn = await signedInOf(context, request);
  if (signedIn === undefined) {
    throw new HttpError(
      401,
      "You are not signed in (or the session expired): sign in with your wallet.",
      "signed-out",
    );
  }
  checkCsrf(context, request, signedIn.session.csrfToken);
  return signedIn;
}

/**
 * The sign-in cookie of a state-changing sign-in request, checked against its header (double
 * submit) and for this service's signature: a value planted by someone else (a cookie set from a
 * sibling domain, a client that picks both) is refused.
 */
function requireSignInToken(context: WebContext, request: FastifyRequest): string {
  const token = request.cookies[SIGN_IN_COOKIE];
  if (!token) {
    throw new HttpError(403, "The sign-in page expired: reload it and sign in again.", "csrf-missing");
  }
  checkCsrf(context, request, token);
  if (!isSignedToken(context.signingKey, token)) {
    throw new HttpError(403, "Invalid CSRF token: reload the page and try again.", "csrf-invalid");
  }
  return token;
}

async function expectationsOf(context: WebContext, request: FastifyRequest): Promise<SignInExpectations> {
  let chainId: string;
  try {
    chainId = (await context.ledgerIdentity()).signInChainId;
  } catch (error) {
    if (!(error instanceof LedgerIdentityUnavailable)) throw error;
    throw new HttpError(
      503,
      "The ledger does not answer, so sign-in is unavailable for now: try again shortly.",
    );
  }
  return { domain: domainOf(context, request), uri: `${originOf(context, request)}/app/api-keys`, chainId };
}

function bytesField(body: Record<string, unknown>, name: string): Uint8Array {
  const value = body[name];
  if (typeof value !== "string" || !BASE64.test(value)) {
    throw new HttpError(400, `The request's ${name} must be base64 text.`, "malformed-request");
  }
  return new Uint8Array(Buffer.from(value, "base64"));
}

function noStore(reply: FastifyReply): FastifyReply {
  return reply.header("cache-control", "no-store");
}

export const accountRoutes: FastifyPluginAsync<{ context: WebContext }> = async (app, { context }) => {
  app.get("/api-keys", async (request, reply) => {
    const signedIn = await signedInOf(context, request);
    if (signedIn === undefined) {
      let token = request.cookies[SIGN_IN_COOKIE];
      if (!token || !isSignedToken(context.signingKey, token)) {
        token = signedToken(context.signingKey);
        reply.setCookie(
          SIGN_IN_COOKIE,
          token,
          cookieOptions(context, request, SIGN_IN_COOKIE_MAX_AGE_SECONDS),
        );
      }
      return sendPage(noStore(reply), {
        title: "API keys",
        section: "api-keys",
        page: "sign-in",
        body: signedOutPage(),
        context,
        csrfToken: token,
      });
    }
    const { address, csrfToken } = signedIn.session;
    const keys = await listApiKeys(context.db, { owner: address });
    return sendPage(noStore(reply), {
      title: "API keys",
      section: "api-keys",
      page: "api-keys",
      body: signedInPage({ address, keys }),
      context,
      csrfToken,
    });
  });

  // The keys table alone, for the page to refresh after a change.
  app.get("/api-keys/table", async (request, reply) => {
    const signedIn = await signedInOf(context, request);
    if (signedIn === undefined) throw new HttpError(401, "You are not signed in.", "signed-out");
    const keys = await listApiKeys(context.db, { owner: signedIn.session.address });
    return noStore(reply).type("text/html; charset=utf-8").send(keysTable(keys).text);
  });

  app.post("/auth/challenge", async (request, reply) => {
    const token = requireSignInToken(context, request);
    // A challenge stores a nonce row: each client, and the process as a whole, gets a few a minute.
    takeAllowance(context.challengeLimits, request, reply, "sign-in attempts");
    const challenge = await issueSignInChallenge(context.db, {
      expectations: await expectationsOf(context, request),
      bindingHash: sha256Hex(token),
      now: context.now(),
      ttlMs: context.signInTtlMs,
    });
    return noStore(reply).send(challenge);
  });

  app.post("/auth/verify", async (request, reply) => {
    const token = requireSignInToken(context, request);
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (typeof body.address !== "string") {
      throw new HttpError(
        400,
        "The request's address must be the wallet's base58 address.",
        "malformed-request",
      );
    }
    const address = await completeSignIn(context.db, {
      expectations: await expectationsOf(context, request),
      bindingHash: sha256Hex(token),
      attempt: {
        address: body.address,
        message: bytesField(body, "message"),
        signature: bytesField(body, "signature"),
      },
      now: context.now(),
    });
    const opened = await openSession(context.db, address, {
      now: context.now(),
      ttlMs: context.sessionTtlMs,
    });
    reply.setCookie(
      SESSION_COOKIE,
      opened.token,
      cookieOptions(context, request, context.sessionTtlMs / 1000),
    );
    reply.clearCookie(SIGN_IN_COOKIE, { path: COOKIE_PATH });
    request.log.info({ address }, "signed in with Solana");
    return noStore(reply).send({ address, expiresAt: new Date(opened.session.expiresAt).toISOString() });
  });

  app.post("/auth/sign-out", async (request, reply) => {
    const { token } = await requireSession(context, request);
    await closeSession(context.db, token);
    reply.clearCookie(SESSION_COOKIE, { path: COOKIE_PATH });
    return noStore(reply).send({ signedOut: true });
  });

  app.post("/api-keys", async (request, reply) => {
    const { session } = await requireSession(context, request);
    const { name } = (request.body ?? {}) as { name?: unknown };
    if (typeof name !== "string") throw new HttpError(400, "Give the key a name.", "invalid-name");
    try {
      const created = await createApiKey(context.db, { name, owner: session.address });
      request.log.info({ keyId: created.record.id, owner: session.address }, "API key created");
      return noStore(reply).code(201).send(created);
    } catch (error) {
      if (isAbasErrorLike(error)) {
        const tooMany = error.context.__code === ABAS_API__TOO_MANY_API_KEYS;
        throw new HttpError(tooMany ? 409 : 400, error.message, tooMany ? "too-many-keys" : "invalid-name");
      }
      throw error;
    }
  });

  app.post<{ Params: { id: string } }>("/api-keys/:id/revoke", async (request, reply) => {
    const { session } = await requireSession(context, request);
    const { id } = request.params;
    const owned = (await listApiKeys(context.db, { owner: session.address })).find((key) => key.id === id);
    if (owned === undefined) throw new HttpError(404, "You have no API key with this id.", "unknown-key");
    if (owned.revokedAt !== null) throw new HttpError(409, "This key is already revoked.", "already-revoked");
    const record = await revokeApiKey(context.db, id);
    request.log.info({ keyId: id, owner: session.address }, "API key revoked");
    return noStore(reply).send({ record });
  });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof SignInError) {
      request.log.info({ code: error.code }, "sign-in refused");
      return reply.code(error.statusCode).send({ message: error.message, code: error.code });
    }
    throw error;
  });
};
