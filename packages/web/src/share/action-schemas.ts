/**
 * The OpenAPI description of the share-link endpoints (Solana Actions): what they take and answer.
 * They only document: the routes check their own parameters, so that a refusal keeps the Actions
 * error shape `{ message }` with the spec's wording.
 */
const ActionError = {
  type: "object",
  required: ["message"],
  properties: {
    message: { type: "string", description: "What is wrong, for the person using the link" },
    code: {
      type: "string",
      description:
        "On a refusal, what was refused: invalid-reference, missing-reference, rate-limited (the card), unknown-host",
    },
  },
  description: "An Actions error (ActionError of the Solana Actions specification), with a code on refusals",
} as const;

const LinkedAction = {
  type: "object",
  required: ["type", "href", "label"],
  properties: {
    type: { type: "string", enum: ["external-link"] },
    href: { type: "string", format: "uri" },
    label: { type: "string" },
  },
} as const;

const ActionGetResponse = {
  type: "object",
  required: ["type", "icon", "title", "description", "label"],
  description:
    "A Solana Actions ActionGetResponse describing the receipt and its verification on the ledger; its " +
    "button is disabled (the Action is informational) and its links open the Explorer and the receipt page",
  properties: {
    type: { type: "string", enum: ["action"] },
    icon: { type: "string", format: "uri", description: "The receipt card (PNG)" },
    title: { type: "string" },
    description: { type: "string" },
    label: { type: "string", description: "The verification status, e.g. Verified on the ledger" },
    disabled: { type: "boolean" },
    links: { type: "object", properties: { actions: { type: "array", items: LinkedAction } } },
    error: ActionError,
  },
} as const;

const ActionsJson = {
  type: "object",
  required: ["rules"],
  properties: {
    rules: {
      type: "array",
      items: {
        type: "object",
        required: ["pathPattern", "apiPath"],
        properties: { pathPattern: { type: "string" }, apiPath: { type: "string" } },
      },
    },
  },
} as const;

const Reference = {
  type: "object",
  properties: {
    tx: { type: "string", description: "A transaction signature (base58): its attestation or batch" },
    id: { type: "string", description: "An attestation id: an address, or <batch address>:<index>" },
  },
  description: "Give tx or id, not both",
} as const;

const PUBLIC: never[] = [];
const json = (schema: object, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
const ERRORS = {
  400: json(ActionError, "The reference is missing or malformed"),
  500: json(ActionError, "The receipt could not be read (details only in the server's log)"),
};

export const ACTION_SCHEMAS = {
  verifyByQuery: {
    operationId: "getShareLinkAction",
    summary: "The share link of a receipt: a Solana Action with its verification status, by tx or id",
    tags: ["actions"],
    security: PUBLIC,
    querystring: Reference,
    response: {
      200: json(ActionGetResponse, "The Action (also for an unknown receipt: disabled, with an error)"),
      ...ERRORS,
    },
  },
  verifyByPath: {
    operationId: "getShareLinkActionById",
    summary: "The share link of a receipt by attestation id or signature in the path (the actions.json rule)",
    tags: ["actions"],
    security: PUBLIC,
    params: {
      type: "object",
      required: ["id"],
      properties: { id: { type: "string", description: "An attestation id or a transaction signature" } },
    },
    response: { 200: json(ActionGetResponse, "The Action"), ...ERRORS },
  },
  card: {
    operationId: "getReceiptCard",
    summary: "The receipt card: an 800 × 800 PNG of the receipt and its verification status, by tx or id",
    tags: ["actions"],
    security: PUBLIC,
    querystring: Reference,
    response: {
      200: {
        description: "The card",
        content: { "image/png": { schema: { type: "string", format: "binary" } } },
      },
      ...ERRORS,
      429: json(
        ActionError,
        "Too many cards drawn for this client or this server: Retry-After says when to ask again",
      ),
    },
  },
  actionsJson: {
    operationId: "getActionsJson",
    summary: "The Actions rules: which page URLs unfurl as which Action",
    tags: ["actions"],
    security: PUBLIC,
    response: { 200: json(ActionsJson, "The rules"), 500: ERRORS[500] },
  },
  /** Paths under /api/actions that hold no Action: refused, and left out of the document. */
  noAction: { hide: true },
} as const;
