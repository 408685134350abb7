/** Schema pieces the tools share. Messages name the expected format: the model reads them. */
import { z } from "zod";

export const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;
export const BASE58_SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/;
export const HEX_32_BYTES = /^[0-9a-fA-F]{64}$/;
/** Unix seconds, or an ISO 8601 date (UTC midnight) or date-time with a zone; as the REST API takes them. */
export const TIME_TEXT =
  /^([0-9]{1,12}|[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:[0-9]{2}))?)$/;

export const ACTION_TYPE_NAMES = ["Transaction", "ToolCall", "Decision", "ModelInvocation"] as const;

export const agentKey = (description: string) =>
  z
    .string()
    .regex(BASE58_ADDRESS, "expected the agent's public key: 32 to 44 base58 characters")
    .describe(description);

export const hex32 = (description: string, what = "a SHA-256 hash") =>
  z.string().regex(HEX_32_BYTES, `expected 64 hexadecimal characters (${what})`).describe(description);

export const timeBound = (description: string) =>
  z
    .union([
      z.number().int().min(0),
      z
        .string()
        .regex(
          TIME_TEXT,
          "expected unix seconds or an ISO 8601 date (2026-11-21) or date-time with a zone (2026-11-21T17:00:00Z)",
        ),
    ])
    .describe(description);

export const ActionTypeName = z.enum(ACTION_TYPE_NAMES);

/** An attestation as the tools return it: the API's record plus an explorer link and a readable time. */
export const AttestationItem = z.object({
  id: z.string().describe("The attestation account address, or `<batch address>:<index>` for a batch item"),
  kind: z.enum(["single", "batch"]),
  actionType: ActionTypeName,
  privacy: z.boolean().describe("true: storedHash is a salted commitment, not the action hash"),
  storedHash: z.string().describe("What the ledger stores (hex): the action hash, or its commitment"),
  agentSignature: z.string().describe("The agent's Ed25519 signature (base58)"),
  txSignature: z.string().describe("The transaction that recorded it (for a batch item, the batch commit)"),
  slot: z.number().int(),
  timestamp: z.number().int().describe("Ledger unix seconds"),
  recordedAt: z.string().describe("The ledger timestamp in ISO 8601 (UTC)"),
  batch: z
    .object({ address: z.string(), index: z.number().int(), merkleRoot: z.string() })
    .nullable()
    .describe("For a batch item: the batch account, the item's index and the signed Merkle root"),
  explorerUrl: z.string().describe("The transaction in the Solana Explorer"),
});

export const ReputationComponents = z.object({
  tenure: z.number(),
  volume: z.number(),
  regularity: z.number(),
  compliance: z.number(),
});

export const Reputation = z.object({
  score: z.number().int().describe("0 to 100"),
  version: z.string().describe("The formula version"),
  referenceTime: z.number().int().describe("Ledger unix seconds the score is computed at"),
  components: ReputationComponents.describe("Each component from 0 to 1"),
  weights: ReputationComponents,
  uncappedScore: z.number().int(),
  cap: z.number().int().nullable().describe("40 when suspended, 0 when revoked, null when active"),
});

export const isoTime = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString();
