/** Attestations: the listing's query, the lookup's id, and the shapes both answer. */
import { Type, type Static } from "@sinclair/typebox";

import { ApiActionTypeName } from "./action-type.js";
import { Address, Nullable } from "./schema-builders.js";

/** Unix seconds, or an ISO 8601 date (UTC midnight) or date-time with a zone. */
export const TIME_PATTERN =
  "^([0-9]{1,12}|[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2}))?)$";

export const ListAttestationsQuery = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: "Page size, 1 to 100" }),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 44,
        pattern: "^[A-Za-z0-9_-]+$",
        description: "`pagination.nextCursor` of the previous page",
      }),
    ),
    agent: Type.Optional(Address("Only this agent's attestations (its public key)")),
    operator: Type.Optional(Address("Only attestations by agents of this operator")),
    actionType: Type.Optional(ApiActionTypeName),
    privacy: Type.Optional(
      Type.Boolean({ description: "true: only privacy-mode attestations; false: only plain ones" }),
    ),
    since: Type.Optional(
      Type.String({ pattern: TIME_PATTERN, description: "Recorded at or after: unix seconds or ISO 8601" }),
    ),
    until: Type.Optional(
      Type.String({
        pattern: TIME_PATTERN,
        description: "Recorded before (exclusive): unix seconds or ISO 8601",
      }),
    ),
    batch: Type.Optional(Address("Only the items of this batch (its commitment account address)")),
    storedHash: Type.Optional(
      Type.String({
        pattern: "^[0-9a-f]{64}$",
        description:
          "Only attestations storing this hash (64 lowercase hex): an action hash, or a privacy-mode commitment",
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListAttestationsQuery = Static<typeof ListAttestationsQuery>;

export const ApiAttestation = Type.Object(
  {
    id: Type.String({
      description: "The attestation account address, or `<batch address>:<index>` for a batch item",
    }),
    kind: Type.Union([Type.Literal("single"), Type.Literal("batch")]),
    agent: Type.String({ description: "The agent's public key" }),
    operator: Type.String({ description: "The agent's operator (wallet)" }),
    actionType: ApiActionTypeName,
    privacy: Type.Boolean({ description: "true when storedHash is a salted commitment (privacy mode)" }),
    storedHash: Type.String({
      description: "What the ledger stores (hex): the action hash, or its commitment",
    }),
    agentSignature: Type.String({
      description: "The agent's Ed25519 signature (base58): of the attest message or of the batch root",
    }),
    txSignature: Type.String({
      description: "The transaction that recorded it (for a batch item: the batch commit)",
    }),
    slot: Type.Integer(),
    timestamp: Type.Integer({ description: "The ledger's unix time (seconds) when it was recorded" }),
    batch: Nullable(
      Type.Object({
        address: Type.String({ description: "The batch commitment account" }),
        index: Type.Integer({ minimum: 0, maximum: 99 }),
        merkleRoot: Type.String({ description: "The Merkle root the agent signed (hex)" }),
      }),
    ),
  },
  { description: "One attested action" },
);
export type ApiAttestation = Static<typeof ApiAttestation>;

export const ApiAttestationPage = Type.Object({
  data: Type.Array(ApiAttestation, {
    description:
      "Newest first: by slot, then by indexing order. At most `limit`; fewer, or none, when combined filters cut the page at the 5,000 attestations it may examine",
  }),
  pagination: Type.Object({
    nextCursor: Nullable(Type.String({ description: "Pass as `cursor` for the next page" })),
    hasMore: Type.Boolean({ description: "true while more attestations may match: follow `nextCursor`" }),
  }),
});
export type ApiAttestationPage = Static<typeof ApiAttestationPage>;

/** An address, `<address>:<index>`, or a transaction signature (64 bytes: up to 88 characters). */
export const ATTESTATION_ID_PATTERN = "^[1-9A-HJ-NP-Za-km-z]{32,88}(:[0-9]{1,2})?$";

export const AttestationIdParams = Type.Object({
  id: Type.String({
    pattern: ATTESTATION_ID_PATTERN,
    description: "An attestation id (address or `<batch>:<index>`) or a transaction signature",
  }),
});

export const ApiAttestationLookup = Type.Object({
  matchedBy: Type.Union([Type.Literal("id"), Type.Literal("txSignature")]),
  data: Type.Array(ApiAttestation, {
    description:
      "One attestation for an id; for a signature, every attestation that transaction recorded, by batch index",
  }),
});
export type ApiAttestationLookup = Static<typeof ApiAttestationLookup>;
