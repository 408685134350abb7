/**
 * The verify page's question: was this action attested, when, and by which agent? The visitor
 * pastes the payload (or its action hash), with the salt of a privacy-mode receipt and optionally a
 * batch item's proof. The SDK's `findAndVerifyAction` finds, through the database as its index,
 * which attestations store that hash, and checks each one against the ledger.
 */
import type { Database } from "@abas/db";
import { ABAS_RUNTIME__RPC_REQUEST_FAILED, ERROR_CODE_RANGES, isAbasError } from "@abas/errors";
import { findAndVerifyAction, type HashToTry, type LookupNote, type VerifiedAttestation } from "@abas/sdk";
import type { Kysely } from "kysely";

import { databaseAttestationIndex } from "./database-attestation-index.js";
import {
  DEFAULT_LEDGER_TIMEOUT_MS,
  displayVerification,
  type LedgerContext,
  type LedgerVerification,
} from "./verify-record.js";

export interface ActionQuery {
  /** The payload text, or a 64-hex action hash. */
  readonly input: string;
  /** 64 hex characters: the salt of a privacy-mode receipt. */
  readonly salt?: string;
  /** A batch item's Merkle proof: sibling hashes, hex, as a JSON list or separated by spaces/commas. */
  readonly proof?: string;
}

export type { HashSource } from "@abas/sdk";

export interface ActionMatch {
  readonly hash: HashToTry;
  readonly attestation: VerifiedAttestation;
  /** The receipt page's id: the attestation address, or `<batch address>:<index>`. */
  readonly receiptId: string;
  readonly verification: LedgerVerification;
}

export interface ActionLookup {
  readonly candidates: readonly HashToTry[];
  readonly matches: readonly ActionMatch[];
  readonly privacy: boolean;
  /** What the lookup did not find or did not search, and why (the SDK's notes). */
  readonly notes: readonly LookupNote[];
  /** False when part of the search could not run (the notes say which). */
  readonly complete: boolean;
}

/** A question the page cannot answer: bad input (400), or a ledger that does not answer (503). */
export class ActionQueryError extends Error {
  override readonly name = "ActionQueryError";

  constructor(
    message: string,
    readonly statusCode = 400,
  ) {
    super(message);
  }
}

const HEX_HASH = /^[0-9a-fA-F]{64}$/;
export const MAX_PAYLOAD_LENGTH = 200_000;
const MAX_MATCHES = 20;

function parseProof(text: string): string[] {
  const trimmed = text.trim();
  let items: unknown[];
  if (trimmed.startsWith("[")) {
    try {
      items = JSON.parse(trimmed) as unknown[];
    } catch {
      throw new ActionQueryError("The proof is not a JSON list: paste the receipt's proof array as it is.");
    }
    if (!Array.isArray(items)) throw new ActionQueryError("The proof must be a list of hashes.");
  } else {
    items = trimmed.split(/[\s,]+/).filter((item) => item.length > 0);
  }
  if (!items.every((item) => typeof item === "string" && HEX_HASH.test(item))) {
    throw new ActionQueryError("Each proof entry must be a 64-character hex hash.");
  }
  if (items.length > 7)
    throw new ActionQueryError("A proof of a batch of up to 100 items has at most 7 hashes.");
  return (items as string[]).map((item) => item.toLowerCase());
}

const receiptIdOf = (attestation: VerifiedAttestation): string =>
  attestation.batch === null ? attestation.address : `${attestation.address}:${attestation.batch.index}`;

export async function lookUpAction(
  db: Kysely<Database>,
  context: LedgerContext,
  query: ActionQuery,
): Promise<ActionLookup> {
  if (query.input.trim().length === 0) throw new ActionQueryError("Paste the action's payload or its hash.");
  if (query.input.length > MAX_PAYLOAD_LENGTH) {
    throw new ActionQueryError(
      `The payload is longer than ${MAX_PAYLOAD_LENGTH.toLocaleString("en-US")} characters.`,
    );
  }
  const salt = query.salt?.trim() || undefined;
  if (salt !== undefined && !HEX_HASH.test(salt)) {
    throw new ActionQueryError("The salt must be 64 hex characters, as the privacy-mode receipt carries it.");
  }
  const proof = query.proof?.trim() ? parseProof(query.proof) : undefined;
  const trimmed = query.input.trim();

  const checkedAt = Date.now();
  try {
    const lookup = await findAndVerifyAction(
      {
        // A pasted 64-hex text is tried as the action hash first, then as a payload like any other text.
        ...(HEX_HASH.test(trimmed) ? { actionHash: trimmed.toLowerCase() } : {}),
        payload: query.input,
        ...(salt === undefined ? {} : { salt: salt.toLowerCase() }),
        ...(proof === undefined ? {} : { proof }),
      },
      {
        rpcUrl: context.rpcUrl,
        programId: context.programId,
        index: databaseAttestationIndex(db),
        maxCandidates: MAX_MATCHES,
        abortSignal: AbortSignal.timeout(context.timeoutMs ?? DEFAULT_LEDGER_TIMEOUT_MS),
      },
    );
    return {
      candidates: lookup.hashes,
      matches: lookup.matches.map((attestation) => ({
        hash: attestation.hash,
        attestation,
        receiptId: receiptIdOf(attestation),
        verification: displayVerification(attestation, checkedAt),
      })),
      privacy: salt !== undefined,
      notes: lookup.notes,
      complete: lookup.complete,
    };
  } catch (error) {
    if (
      isAbasError(error) &&
      error.code >= ERROR_CODE_RANGES.ABAS_SDK.min &&
      error.code <= ERROR_CODE_RANGES.ABAS_SDK.max
    ) {
      throw new ActionQueryError(error.message);
    }
    const timedOut = error instanceof DOMException && ["TimeoutError", "AbortError"].includes(error.name);
    if (timedOut || isAbasError(error, ABAS_RUNTIME__RPC_REQUEST_FAILED)) {
      throw new ActionQueryError(
        `The ledger could not be checked: ${error instanceof Error ? error.message : String(error)}. Try again shortly.`,
        503,
      );
    }
    throw error;
  }
}
