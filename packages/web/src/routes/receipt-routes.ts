/**
 * The receipts page: the visitor opens a receipts folder in the browser, which asks, file by file,
 * what each one records and whether it verifies against the ledger. Both questions change
 * nothing, so they need no session; the file's text is checked and forgotten. A check costs the
 * ledger requests, so checks are limited per client and per server (see `receiptChecksPerMinute`).
 */
import type { FastifyPluginAsync } from "fastify";

import { readReceiptFileText, receiptFileTooLarge, verifyReceiptFileText } from "../ledger/receipt-files.js";
import { receiptsPage, RECEIPTS_READ_PATH, RECEIPTS_VERIFY_PATH } from "../pages/receipts-page.js";
import { takeAllowance, type WebContext } from "../web-context.js";
import { sendPage } from "./page-routes.js";

/**
 * A receipt file holds one tool call and its receipt: the page does not send a larger file, and
 * answers for it itself (the server would cut the upload off). The body limit leaves room for
 * the JSON escaping of the file's text.
 */
const MAX_RECEIPT_FILE_BYTES = 4 * 1024 * 1024;
const BODY_LIMIT = 3 * MAX_RECEIPT_FILE_BYTES;

interface ReceiptFileBody {
  readonly file: string;
  readonly content: string;
}

const receiptFileSchema = {
  body: {
    type: "object",
    required: ["file", "content"],
    additionalProperties: false,
    properties: {
      file: { type: "string", minLength: 1, maxLength: 1024 },
      content: { type: "string" },
    },
  },
} as const;

export const receiptRoutes: FastifyPluginAsync<{ context: WebContext }> = async (app, { context }) => {
  app.get("/receipts", async (_request, reply) =>
    sendPage(reply, {
      title: "Your receipts",
      section: "receipts",
      page: "receipts",
      body: receiptsPage({
        maxFileBytes: MAX_RECEIPT_FILE_BYTES,
        tooLarge: receiptFileTooLarge(MAX_RECEIPT_FILE_BYTES),
      }),
      context,
    }),
  );

  const routeOptions = { schema: receiptFileSchema, bodyLimit: BODY_LIMIT };

  app.post<{ Body: ReceiptFileBody }>(
    RECEIPTS_READ_PATH.slice("/app".length),
    routeOptions,
    async (request) => readReceiptFileText(request.body.file, request.body.content),
  );

  app.post<{ Body: ReceiptFileBody }>(
    RECEIPTS_VERIFY_PATH.slice("/app".length),
    routeOptions,
    async (request, reply) => {
      takeAllowance(context.receiptCheckLimits, request, reply, "receipt checks");
      return await verifyReceiptFileText(request.body.file, request.body.content, context.ledger);
    },
  );
};
