/** The read-only pages: recent attestations (live), an agent, an attestation, and the verify page. */
import type { ApiAttestationPage } from "@abas/api-contract";
import { decodeCursor, getAgent, getAttestation, getIndexerStatus, listAttestations } from "@abas/db";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";

import { decodeAddress, isTransactionSignature } from "../base58.js";
import { attestationRows } from "../html/components.js";
import type { SafeHtml } from "../html/html.js";
import { renderPage, type Section } from "../html/layout.js";
import { ActionQueryError, lookUpAction } from "../ledger/lookup-action.js";
import { verifyIndexedAttestation } from "../ledger/verify-record.js";
import { agentPage } from "../pages/agent-page.js";
import { attestationPage, transactionPage } from "../pages/attestation-page.js";
import { LIVE_RECENT_PATH, recentPage } from "../pages/recent-page.js";
import { verifyPage, type VerifyForm } from "../pages/verify-page.js";
import { actionUrl, blinkUrl, cardUrl } from "../share/share-links.js";
import { subjectOf } from "../share/lookup-subject.js";
import { HttpError, originOf, type WebContext } from "../web-context.js";

const PAGE_SIZE = 25;

export function sendPage(
  reply: FastifyReply,
  options: {
    title: string;
    section?: Section;
    page: string;
    body: SafeHtml;
    context: WebContext;
    csrfToken?: string;
  },
  statusCode = 200,
): FastifyReply {
  return reply
    .code(statusCode)
    .type("text/html; charset=utf-8")
    .send(
      renderPage({
        title: options.title,
        ...(options.section === undefined ? {} : { section: options.section }),
        page: options.page,
        body: options.body,
        assets: options.context.assets,
        ...(options.csrfToken === undefined ? {} : { csrfToken: options.csrfToken }),
      }),
    );
}

function cursorOf(request: FastifyRequest): string | undefined {
  const { cursor } = request.query as { cursor?: unknown };
  return typeof cursor === "string" && cursor.length > 0 ? cursor : undefined;
}

/** A page of attestations; a cursor this server did not issue is the visitor's error. */
async function pageOf(
  context: WebContext,
  options: { cursor: string | undefined; agent?: string },
): Promise<ApiAttestationPage> {
  if (options.cursor !== undefined) {
    try {
      decodeCursor(options.cursor);
    } catch {
      throw new HttpError(400, "This page link is not valid: start from the newest page.");
    }
  }
  return await listAttestations(context.db, {
    limit: PAGE_SIZE,
    ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
    ...(options.agent === undefined ? {} : { agent: options.agent }),
  });
}

function formValue(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  return typeof value === "string" ? value : "";
}

export const pageRoutes: FastifyPluginAsync<{ context: WebContext }> = async (app, { context }) => {
  const { rpcUrl } = context.ledger;

  app.get("/", async (request, reply) => {
    const cursor = cursorOf(request);
    const [page, indexer] = await Promise.all([pageOf(context, { cursor }), getIndexerStatus(context.db)]);
    return sendPage(reply, {
      title: "Recent attestations",
      section: "attestations",
      page: "recent",
      body: recentPage({ page, indexer, rpcUrl, cursor }),
      context,
    });
  });

  // The live list polls this: the newest rows, rendered exactly as the page renders them.
  app.get(LIVE_RECENT_PATH.slice("/app".length), async (_request, reply) => {
    const page = await pageOf(context, { cursor: undefined });
    return reply
      .type("text/html; charset=utf-8")
      .header("cache-control", "no-store")
      .send(attestationRows(page.data, rpcUrl).text);
  });

  app.get<{ Params: { agent: string } }>("/agents/:agent", async (request, reply) => {
    const { agent } = request.params;
    if (decodeAddress(agent) === undefined)
      throw new HttpError(404, `${agent} is not an agent's public key.`);
    const profile = await getAgent(context.db, agent);
    if (profile === undefined) {
      throw new HttpError(
        404,
        `No agent ${agent} is registered on this ledger (or the indexer has not seen it yet).`,
      );
    }
    const cursor = cursorOf(request);
    const page = await pageOf(context, { cursor, agent: profile.agent });
    return sendPage(reply, {
      title: `Agent ${profile.agent}`,
      section: "attestations",
      page: "agent",
      body: agentPage({ profile, page, rpcUrl, ...(cursor === undefined ? {} : { cursor }) }),
      context,
    });
  });

  app.get<{ Params: { id: string } }>("/attestations/:id", async (request, reply) => {
    const { id } = request.params;
    const lookup = await getAttestation(context.db, id);
    if (lookup === undefined) {
      throw new HttpError(
        404,
        `No attestation ${id} is recorded on this ledger (or it is too recent to be indexed).`,
      );
    }
    const { records, wholeBatch, others } = subjectOf(lookup);
    const record = records[0]!;
    const verification = await verifyIndexedAttestation(record, context.ledger);
    const origin = originOf(context, request);
    // The page's own subject: a transaction (a single attestation's, or a whole batch) or one batch item.
    const [key, value] =
      isTransactionSignature(id) || record.batch === null
        ? (["tx", record.txSignature] as const)
        : (["id", record.id] as const);
    const action = actionUrl(origin, key, value);
    const share = { actionUrl: action, blinkUrl: blinkUrl(action), cardUrl: cardUrl(origin, key, value) };
    if (wholeBatch) {
      return sendPage(reply, {
        title: "Batch transaction",
        section: "attestations",
        page: "transaction",
        body: transactionPage({ signature: id, records, others, verification, share, rpcUrl }),
        context,
      });
    }
    return sendPage(reply, {
      title: `${record.actionType} by ${record.agent}`,
      section: "attestations",
      page: "attestation",
      body: attestationPage({ record, others, verification, share, rpcUrl }),
      context,
    });
  });

  app.get("/verify", async (_request, reply) =>
    sendPage(reply, {
      title: "Verify an action",
      section: "verify",
      page: "verify",
      body: verifyPage({ form: { input: "", salt: "", proof: "" } }),
      context,
    }),
  );

  // A POST so the payload stays out of URLs and logs; it changes nothing, so it needs no session.
  app.post("/verify", async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const form: VerifyForm = {
      input: formValue(body, "input"),
      salt: formValue(body, "salt").trim(),
      proof: formValue(body, "proof"),
    };
    try {
      const [lookup, indexer] = await Promise.all([
        lookUpAction(context.db, context.ledger, {
          input: form.input,
          ...(form.salt ? { salt: form.salt } : {}),
          ...(form.proof.trim() ? { proof: form.proof } : {}),
        }),
        getIndexerStatus(context.db),
      ]);
      return sendPage(reply, {
        title: "Verify an action",
        section: "verify",
        page: "verify",
        body: verifyPage({ form, lookup, indexedSlot: indexer.indexedSlot }),
        context,
      });
    } catch (error) {
      if (!(error instanceof ActionQueryError)) throw error;
      return sendPage(
        reply,
        {
          title: "Verify an action",
          section: "verify",
          page: "verify",
          body: verifyPage({ form, error: error.message }),
          context,
        },
        error.statusCode,
      );
    }
  });
};
