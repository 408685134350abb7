/**
 * `webPlugin`: the web app under /app, the share link under /api/actions with /actions.json, on the
 * Fastify app of the REST API (same process, same port). Pages are rendered on the server; one
 * small script, bundled from TypeScript when the plugin starts, adds the live list, the wallet
 * sign-in and the API-key buttons.
 */
import cookie from "@fastify/cookie";
import { LOCAL_PROGRAM_ID } from "@abas/sdk";
import type {
  FastifyError,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  RouteOptions,
} from "fastify";

import { loadWebAssets, type WebAsset } from "./assets/web-assets.js";
import { createLedgerIdentityReader } from "./ledger/ledger-identity.js";
import { VerificationCache } from "./ledger/verification-cache.js";
import { errorPage } from "./pages/error-page.js";
import { accountRoutes } from "./routes/account-routes.js";
import { actionRoutes } from "./routes/action-routes.js";
import { pageRoutes, sendPage } from "./routes/page-routes.js";
import { receiptRoutes } from "./routes/receipt-routes.js";
import { loadSigningKey } from "./auth/secrets.js";
import {
  createWebContext,
  HttpError,
  originOf,
  refusalOf,
  type WebContext,
  type WebPluginOptions,
} from "./web-context.js";

/** How long a share link waits for the ledger before it answers that it could not be checked. */
const SHARE_LINK_LEDGER_TIMEOUT_MS = 3_000;

const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  // Wallet icons are data: URIs (Wallet Standard).
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

function serveAsset(asset: WebAsset) {
  return async (_request: FastifyRequest, reply: FastifyReply) =>
    reply
      .type(asset.contentType)
      .header("cache-control", "public, max-age=31536000, immutable")
      .send(asset.body);
}

/** Pages get an HTML error page; the script's requests (JSON, fragments) get `{ message }`. */
function wantsHtml(request: FastifyRequest): boolean {
  return (
    request.method === "GET" &&
    !request.url.startsWith("/app/live/") &&
    !request.url.startsWith("/app/api-keys/table")
  );
}

function appErrorHandler(context: WebContext) {
  return (error: FastifyError | HttpError, request: FastifyRequest, reply: FastifyReply) => {
    const refusal = refusalOf(error);
    if (refusal === undefined) request.log.error({ err: error }, "web request failed");
    const { statusCode, body } = refusal ?? {
      statusCode: 500,
      body: {
        message: `Something went wrong on the server (request ${request.id}); it is in the server's log.`,
      },
    };
    if (wantsHtml(request)) {
      return sendPage(
        reply,
        { title: "Error", page: "error", body: errorPage(statusCode, body.message), context },
        statusCode,
      );
    }
    return reply.code(statusCode).send(body);
  };
}

/** Pages, their forms and assets are no HTTP API: the OpenAPI document leaves them out. */
function hideFromOpenApi(route: RouteOptions): void {
  route.schema = { ...route.schema, hide: true } as FastifySchema;
}

const appRoutes: FastifyPluginAsync<{ context: WebContext }> = async (app, { context }) => {
  app.addHook("onRoute", hideFromOpenApi);
  await app.register(cookie);
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "string", bodyLimit: 1_048_576 },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );
  app.addHook("onSend", async (_request, reply) => {
    reply.header("content-security-policy", CONTENT_SECURITY_POLICY);
    reply.header("x-content-type-options", "nosniff");
    reply.header("referrer-policy", "same-origin");
    reply.header("x-frame-options", "DENY");
    if (!reply.hasHeader("cache-control")) reply.header("cache-control", "no-cache");
  });
  app.setErrorHandler(appErrorHandler(context));
  app.setNotFoundHandler((request, reply) =>
    appErrorHandler(context)(
      new HttpError(404, `There is no page at ${request.url.split("?")[0]}.`, "not-found"),
      request,
      reply,
    ),
  );

  for (const asset of [context.assets.script, context.assets.stylesheet, context.assets.favicon]) {
    app.get(asset.path.slice("/app".length), serveAsset(asset));
  }
  await app.register(pageRoutes, { context });
  await app.register(receiptRoutes, { context });
  await app.register(accountRoutes, { context });
};

export const webPlugin: FastifyPluginAsync<WebPluginOptions> = async (app, options) => {
  const programId = options.programId ?? LOCAL_PROGRAM_ID;
  const context = createWebContext(
    { ...options, programId },
    {
      assets: await loadWebAssets(),
      ledgerIdentity: createLedgerIdentityReader(options.rpcUrl),
      signingKey: await loadSigningKey(options.db),
    },
  );
  // A share link is unfurled while someone waits: a ledger that hangs gives "could not be checked" soon.
  const cache = new VerificationCache({ ...context.ledger, timeoutMs: SHARE_LINK_LEDGER_TIMEOUT_MS });

  // Every page, form and share link names this site: a request for another Host is refused first.
  app.addHook("onRequest", async (request) => {
    originOf(context, request);
  });

  app.get("/", { schema: { hide: true } as FastifySchema }, async (_request, reply) =>
    reply.redirect("/app", 302),
  );
  await app.register(appRoutes, { prefix: "/app", context });
  await app.register(actionRoutes, { context, cache });
};
