/**
 * The verify page's question: was this action attested, when, and by which agent? The visitor
 * pastes the payload (or its action hash), with the salt of a privacy-mode receipt and optionally a
 * batch item's proof. The index finds which attestations store that hash; each one is then checked
 * against the ledger with the SDK's `verifyReceipt`, opened with what the visitor supplied.
 */
import type { ApiAttestation as IndexedAttestation } from "@abas/api-contract";
import { listAttestations, type Database } from "@abas/db";
import { bytesToHex, computeCommitment, hexToBytes } from "@abas/program-client";
import { canonicalize, hashAction } from "@abas/sdk";
import type { Kysely } from "kysely";

import { verifyIndexedAttestation, type LedgerContext, type LedgerVerification } from "./verify-record.js";

export interface ActionQuery {
  /** The payload text, or a 64-hex action hash. */
  readonly input: string;
  /** 64 hex characters: the salt of a privacy-mode receipt. */
  readonly salt?: string;
  /** A batch item's Merkle proof: sibling hashes, hex, as a JSON list or separated by spaces/commas. */
  readonly proof?: string;
}

export type HashSource = "action-hash" | "payload-as-written" | "canonical-json";

export interface Candidate {
  readonly source: HashSource;
  readonly actionHash: string;
  /** What the ledger would store: the action hash, or its commitment under the salt. */
  readonly storedHash: string;
}

export interface ActionMatch {
  readonly candidate: Candidate;
  readonly record: IndexedAttestation;
  readonly verification: LedgerVerification;
}

export interface ActionLookup {
  readonly candidates: readonly Candidate[];
  readonly matches: readonly ActionMatch[];
  readonly privacy: boolean;
}

export class ActionQueryError extends Error {
  override readonly name = "ActionQueryError";
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

/** The action hashes the input may stand for, each once, in the order they are tried. */
async function actionHashesOf(input: string): Promise<{ source: HashSource; actionHash: string }[]> {
  const hashes: { source: HashSource; actionHash: string }[] = [];
  const add = (source: HashSource, actionHash: string) => {
    if (!hashes.some((entry) => entry.actionHash === actionHash)) hashes.push({ source, actionHash });
  };
  const trimmed = input.trim();
  if (HEX_HASH.test(trimmed)) add("action-hash", trimmed.toLowerCase());
  add("payload-as-written", await hashAction(input));
  // The SDK's users hash canonical JSON; a payload pasted with other spacing or key order still matches.
  try {
    add("canonical-json", await hashAction(canonicalize(JSON.parse(input))));
  } catch {
    // Not JSON: only the text as written.
  }
  return hashes;
}

async function findByStoredHash(db: Kysely<Database>, storedHash: string): Promise<IndexedAttestation[]> {
  return (await listAttestations(db, { storedHash, limit: MAX_MATCHES })).data;
}

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

  const candidates: Candidate[] = (await actionHashesOf(query.input)).map(({ source, actionHash }) => ({
    source,
    actionHash,
    storedHash:
      salt === undefined
        ? actionHash
        : bytesToHex(computeCommitment(hexToBytes(salt, 32), hexToBytes(actionHash, 32))),
  }));

  const matches: ActionMatch[] = [];
  for (const candidate of candidates) {
    for (const record of await findByStoredHash(db, candidate.storedHash)) {
      // A stored hash means the same thing only in the same mode: a commitment is never a plain hash.
      if (record.privacy !== (salt !== undefined)) continue;
      const opening = {
        actionHash: candidate.actionHash,
        ...(salt === undefined ? {} : { salt: salt.toLowerCase() }),
        ...(proof === undefined || record.batch === null ? {} : { proof }),
      };
      matches.push({
        candidate,
        record,
        verification: await verifyIndexedAttestation(record, context, opening),
      });
    }
  }
  return { candidates, matches, privacy: salt !== undefined };
}
