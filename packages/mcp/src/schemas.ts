/**
 * Schema pieces the tools share. Messages name the expected format: the model reads them. What the
 * tools pass on from the REST API keeps the API contract's shapes (contract-to-zod.ts).
 */
import {
  ACTION_TYPE_NAMES,
  ADDRESS_PATTERN,
  ApiAgent,
  ApiAttestation,
  ApiAttestationPage,
  ApiReputation,
  TIME_PATTERN,
} from "@abas/api-contract";
import { z } from "zod";

import { zodObjectFromContract } from "./contract-to-zod.js";

export const BASE58_ADDRESS = new RegExp(ADDRESS_PATTERN);
export const BASE58_SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/;
export const HEX_32_BYTES = /^[0-9a-fA-F]{64}$/;
/** Unix seconds, or an ISO 8601 date (UTC midnight) or date-time with a zone; as the REST API takes them. */
export const TIME_TEXT = new RegExp(TIME_PATTERN);

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

/** The API's agent profile and page of attestations, for the parts the tools pass on unchanged. */
export const AgentProfile = zodObjectFromContract(ApiAgent);
export const AttestationPage = zodObjectFromContract(ApiAttestationPage);

/** The API's reputation: the score, its components and weights, and the formula version. */
export const Reputation = zodObjectFromContract(ApiReputation);

/** An attestation as the tools return it: the API's record (its agent is the tool's) plus an explorer link and a readable time. */
export const AttestationItem = zodObjectFromContract(ApiAttestation)
  .omit({ agent: true, operator: true })
  .extend({
    recordedAt: z.string().describe("The ledger timestamp in ISO 8601 (UTC)"),
    explorerUrl: z.string().describe("The transaction in the Solana Explorer"),
  });

export const isoTime = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString();
