/**
 * The share link, per the Solana Actions specification: `GET`/`OPTIONS /api/actions/verify?tx=…`
 * (and `/api/actions/verify/<attestation id or signature>`, which actions.json maps the receipt
 * pages to) answer an ActionGetResponse describing the receipt and its verification status,
 * computed from the ledger; its icon is the receipt card `/api/actions/verify/card.png`.
 * The Action is informational: its button is disabled, its links open the Explorer and the
 * receipt page. Every answer under /api/actions and of /actions.json, refusals included, carries the
 * Actions CORS headers, X-Action-Version and X-Blockchain-Ids; a CORS preflight (OPTIONS) is always
 * answered 204, so that a blink client in a browser can read even a refusal.
 */
import { setTimeout as delay } from "node:timers/promises";

import { getAttestation } from "@abas/db";
import { getTransactionExplorerUrl } from "@abas/sdk";
import type { ActionGetResponse, ActionsJson } from "@solana/actions-spec";
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest, FastifySchema } from "fastify";

import { decodeAddress, isTransactionSignature } from "../base58.js";
import type { LedgerVerification } from "../ledger/verify-record.js";
import type { VerificationCache } from "../ledger/verification-cache.js";
import { setActionHeaders } from "../share/action-headers.js";
import { ACTION_SCHEMAS } from "../share/action-schemas.js";
import { renderReceiptCard } from "../share/receipt-card.js";
import { subjectOf, type LookupSubject } from "../share/lookup-subject.js";
import { describeReceipt, describeUnknown, type ReceiptFacts } from "../share/receipt-facts.js";
import { ACTION_PATH, CARD_PATH, cardUrl } from "../share/share-links.js";
import { HttpError, originOf, refusalOf, takeAllowance, type WebContext } from "../web-context.js";

interface Subject extends LookupSubject {
  readonly verification: LedgerVerification;
}

type Reference = { readonly key: "tx" | "id"; readonly value: string };

/** Once known, the ledger's identity is remembered; this bounds only the first asks of a hanging ledger. */
const LEDGER_IDENTITY_WAIT_MS = 500;

const ATTESTATION_ID = /^([1-9A-HJ-NP-Za-km-z]{32,44})(?::(\d{1,3}))?$/;

function isAttestationId(value: string): boolean {
  const match = ATTESTATION_ID.exec(value);
  return match !== null && decodeAddress(match[1]!) !== undefined;
}

function referenceFrom(query: unknown): Reference {
  const { tx, id } = (query ?? {}) as Record<string, unknown>;
  if (typeof tx === "string" && id === undefined) {
    if (!isTransactionSignature(tx)) {
      throw new HttpError(
        400,
        "Invalid tx: expected a base58 transaction signature (64 bytes, at most 88 characters).",
        "invalid-reference",
      );
    }
    return { key: "tx", value: tx };
  }
  if (typeof id === "string" && tx === undefined) {
    if (!isAttestationId(id) && !isTransactionSignature(id)) {
      throw new HttpError(
        400,
        "Invalid id: expected an attestation id (an address or <batch address>:<index>).",
        "invalid-reference",
      );
    }
    return { key: "id", value: id };
  }
  if (tx !== undefined && id !== undefined)
    throw new HttpError(400, "Give either tx or id, not both.", "invalid-reference");
  if (Array.isArray(tx) || Array.isArray(id))
    throw new HttpError(400, "Give tx (or id) once.", "invalid-reference");
  throw new HttpError(
    400,
    "Missing tx: call this link with ?tx=<transaction signature>.",
    "missing-reference",
  );
}

function referenceFromPath(id: string): Reference {
  if (isTransactionSignature(id)) return { key: "tx", value: id };
  if (isAttestationId(id)) return { key: "id", value: id };
  throw new HttpError(
    400,
    "Invalid id: expected a transaction signature or an attestation id.",
    "invalid-reference",
  );
}

async function resolveSubject(
  context: WebContext,
  cache: VerificationCache,
  reference: Reference,
): Promise<Subject | undefined> {
  const lookup = await getAttestation(context.db, reference.value);
  if (lookup === undefined) return undefined;
  const subject = subjectOf(lookup);
  return { ...subject, verification: await cache.verify(subject.records[0]!) };
}

function factsOf(subject: Subject | undefined, reference: Reference): ReceiptFacts {
  return subject === undefined
    ? describeUnknown(reference.value)
    : describeReceipt(subject, subject.verification);
}

/** Rendered cards by reference and check time: a verified card is the same until it is re-checked. */
const MAX_CACHED_CARDS = 200;

/**
 * How long a card that does not say "verified" may be used again: its Cache-Control max-age, and
 * for an unknown reference's "not found" card, how long this server sends the one it drew.
 */
const UNSETTLED_CARD_SECONDS = 10;

/** The methods every Action path answers; the Action is informational, so it takes no POST. */
const ACTION_METHODS = "GET, HEAD, OPTIONS";

export const actionRoutes: FastifyPluginAsync<{ context: WebContext; cache: VerificationCache }> = async (
  app,
  { context, cache },
) => {
  const cards = new Map<string, { readonly png: Promise<Buffer>; readonly drawnAt: number }>();
  /**
   * The card of `facts`, drawn once per reference, status and check (concurrent asks share the
   * drawing). Every unknown reference shares one "not found" card, without the reference, drawn
   * again after UNSETTLED_CARD_SECONDS: made-up references cost no drawing each. A drawing takes
   * one of the client's and the server's card allowances.
   */
  const cardOf = (
    request: FastifyRequest,
    reply: FastifyReply,
    facts: ReceiptFacts,
    subject: Subject | undefined,
    reference: Reference,
  ): Promise<Buffer> => {
    const host = new URL(originOf(context, request)).host;
    const now = Date.now();
    const checkedAt = subject?.verification.checkedAt ?? now;
    const key =
      subject === undefined
        ? `unknown:${host}`
        : `${reference.key}:${reference.value}:${facts.status}:${checkedAt}:${host}`;
    const drawn = cards.get(key);
    if (drawn !== undefined && (subject !== undefined || now - drawn.drawnAt < UNSETTLED_CARD_SECONDS * 1000))
      return drawn.png;
    takeAllowance(context.receiptCardLimits, request, reply, "receipt cards drawn");
    const png = renderReceiptCard(subject === undefined ? { ...facts, rows: [] } : facts, checkedAt, host);
    cards.delete(key);
    cards.set(key, { png, drawnAt: now });
    png.catch(() => {
      if (cards.get(key)?.png === png) cards.delete(key);
    });
    if (cards.size > MAX_CACHED_CARDS) cards.delete(cards.keys().next().value!);
    return png;
  };

  app.addHook("onRequest", async (_request, reply) => {
    // The chain id header is worth a short wait only: a hanging ledger must not hold the answer.
    const identity = await Promise.race([
      context.ledgerIdentity().catch(() => undefined),
      delay(LEDGER_IDENTITY_WAIT_MS, undefined),
    ]);
    setActionHeaders(reply, identity?.blockchainId);
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    // A refusal before this plugin's own hook (the site's Host check) still carries the headers.
    if (!reply.hasHeader("x-action-version")) setActionHeaders(reply, undefined);
    const refusal = refusalOf(error);
    if (refusal !== undefined) return reply.code(refusal.statusCode).send(refusal.body);
    request.log.error({ err: error }, "share link failed");
    return reply.code(500).send({ message: `The receipt could not be read (request ${request.id}).` });
  });

  async function answerAction(
    request: FastifyRequest,
    reply: FastifyReply,
    reference: Reference,
  ): Promise<ActionGetResponse> {
    const origin = originOf(context, request);
    const subject = await resolveSubject(context, cache, reference);
    const facts = factsOf(subject, reference);
    // A verified receipt stays verified; anything else may change as soon as the indexer catches up.
    reply.header("cache-control", facts.status === "verified" ? "public, max-age=60" : "no-cache");
    const icon = cardUrl(origin, reference.key, reference.value);
    if (subject === undefined) {
      return {
        type: "action",
        icon,
        title: facts.title,
        description: facts.description,
        label: facts.label,
        disabled: true,
        error: { message: facts.error ?? facts.description },
      } satisfies ActionGetResponse;
    }
    const first = subject.records[0]!;
    const page = subject.wholeBatch ? first.txSignature : first.id;
    return {
      type: "action",
      icon,
      title: facts.title,
      description: facts.description,
      label: facts.label,
      disabled: true,
      links: {
        actions: [
          {
            type: "external-link",
            href: getTransactionExplorerUrl(first.txSignature, context.ledger.rpcUrl),
            label: "View on Solana Explorer",
          },
          {
            type: "external-link",
            href: `${origin}/app/attestations/${encodeURIComponent(page)}`,
            label: "Open the receipt",
          },
        ],
      },
    } satisfies ActionGetResponse;
  }

  /** The CORS preflight's answer: the Actions headers (this plugin's hook sets them) and no body. */
  const preflight = async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.code(204).header("allow", ACTION_METHODS).send();

  /**
   * GET with its OpenAPI description (and HEAD, as every GET route); OPTIONS, the CORS preflight
   * the Actions specification asks for, answered by the headers alone whatever the query (a
   * preflight that failed would keep a browser from reading the answer, refusals included); every
   * other method 405. The schemas only document: the handlers check their parameters, and answers
   * are plain JSON.
   */
  function actionRoute<Params = unknown>(
    url: string,
    schema: (typeof ACTION_SCHEMAS)[keyof typeof ACTION_SCHEMAS],
    handler: (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => Promise<unknown>,
  ): void {
    const options = {
      validatorCompiler: () => () => true,
      serializerCompiler: () => (data: unknown) => JSON.stringify(data),
    };
    const hidden = { hide: true } as FastifySchema;
    app.get<{ Params: Params }>(url, { ...options, schema }, handler);
    app.options(url, { schema: hidden }, preflight);
    app.route({
      method: ["POST", "PUT", "PATCH", "DELETE"],
      url,
      schema: hidden,
      handler: async (request, reply) => {
        void reply.header("allow", ACTION_METHODS);
        throw new HttpError(
          405,
          `This Action only describes a receipt: ${request.method} is not answered, GET is.`,
          "method-not-allowed",
        );
      },
    });
  }

  actionRoute(ACTION_PATH, ACTION_SCHEMAS.verifyByQuery, async (request, reply) =>
    answerAction(request, reply, referenceFrom(request.query)),
  );

  actionRoute(CARD_PATH, ACTION_SCHEMAS.card, async (request, reply) => {
    const reference = referenceFrom(request.query);
    const subject = await resolveSubject(context, cache, reference);
    const facts = factsOf(subject, reference);
    const png = await cardOf(request, reply, facts, subject, reference);
    return reply
      .type("image/png")
      .header(
        "cache-control",
        `public, max-age=${facts.status === "verified" ? 300 : UNSETTLED_CARD_SECONDS}`,
      )
      .send(png);
  });

  actionRoute<{ id: string }>(`${ACTION_PATH}/:id`, ACTION_SCHEMAS.verifyByPath, async (request, reply) =>
    answerAction(request, reply, referenceFromPath(request.params.id)),
  );

  actionRoute(
    "/actions.json",
    ACTION_SCHEMAS.actionsJson,
    async () =>
      ({
        rules: [
          // A receipt page's URL unfurls as its Action: /app/attestations/<id> -> /api/actions/verify/<id>.
          { pathPattern: "/app/attestations/*", apiPath: `${ACTION_PATH}/*` },
          { pathPattern: "/api/actions/**", apiPath: "/api/actions/**" },
        ],
      }) satisfies ActionsJson,
  );

  // Any other path under /api/actions: a refusal a blink client can read, not the REST API's 404.
  app.options("/api/actions/*", { schema: ACTION_SCHEMAS.noAction }, preflight);
  app.route({
    method: ["GET", "POST", "PUT", "PATCH", "DELETE"],
    url: "/api/actions/*",
    schema: ACTION_SCHEMAS.noAction,
    handler: async (request) => {
      throw new HttpError(404, `There is no Action at ${request.url.split("?")[0]}.`, "not-found");
    },
  });
};
