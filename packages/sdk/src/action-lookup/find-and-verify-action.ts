/**
 * "Was this action attested, by which agent, when?", answered from the ledger: the hashes the query
 * stands for, the ledger attestations that store them (found from the reference given, or through
 * the index), each checked with `verifyReceipt`.
 */
import { ABAS_SDK__ATTESTATION_INDEX_REQUIRED, ABAS_SDK__INVALID_ARGUMENT, AbasError } from "@abas/errors";
import { MAX_BATCH_ITEMS } from "@abas/program-client";
import type { Address, Signature } from "@solana/kit";

import { assertObject, parseAddress, parseHash } from "../input-validation.js";
import { findCandidates, searchedBy, type SearchedBy, type Where } from "./find-candidates.js";
import { hashesToTry, type ActionToHash, type HashToTry } from "./hashes-to-try.js";
import {
  countOption,
  DEFAULT_MAX_CANDIDATES,
  lookupContext,
  untilAborted,
  type LookupOptions,
} from "./lookup-options.js";
import { INCOMPLETE_SEARCH, note, type LookupNote, type LookupNoteKind } from "./lookup-notes.js";
import { verifyCandidate, type Candidate } from "./verify-candidate.js";
import type { VerifiedAttestation } from "./verified-attestation.js";

export type ActionQuery = ActionToHash &
  Readonly<{
    /** A batch item's Merkle proof as its receipt carries it (sibling hashes, hex, from the leaf up). */
    proof?: readonly string[];
    /** The agent expected to have attested it: its attestation account is read directly. */
    agent?: string;
    /** The transaction that recorded it (for a batch item, the batch commit). */
    txSignature?: string;
    /** The batch account of a batch item. */
    batchAddress?: string;
    /** A batch item's position, from 0; needs `batchAddress` or `txSignature`. */
    index?: number;
  }>;

export type ActionMatch = VerifiedAttestation & Readonly<{ hash: HashToTry }>;

export type ActionLookup = Readonly<{
  /** At least one attestation of the action passed every check. */
  attested: boolean;
  /**
   * Every place the query names was searched. False when part of the search could not run (the
   * notes say which): `attested: false` then means "not found", not "never attested".
   */
  complete: boolean;
  /** Every hash tried, in order. */
  hashes: readonly HashToTry[];
  searchedBy: SearchedBy;
  matches: readonly ActionMatch[];
  notes: readonly LookupNote[];
}>;

const SIGNATURE = /^[1-9A-HJ-NP-Za-km-z]{64,88}$/;
const MAX_PROOF_LENGTH = 7;

function invalid(argument: string, reason: string): AbasError {
  return new AbasError(ABAS_SDK__INVALID_ARGUMENT, { argument, reason });
}

function parseWhere(query: ActionQuery): Where {
  const { index } = query;
  if (index !== undefined) {
    if (!Number.isInteger(index) || index < 0 || index >= MAX_BATCH_ITEMS) {
      throw invalid("index", `expected an item position in 0..${MAX_BATCH_ITEMS - 1}`);
    }
    if (query.batchAddress === undefined && query.txSignature === undefined) {
      throw invalid("index", "needs the batch it numbers: give batchAddress (or txSignature) too");
    }
  }
  if (query.txSignature !== undefined && !SIGNATURE.test(query.txSignature)) {
    throw invalid("txSignature", "expected a base58 transaction signature");
  }
  return {
    ...(query.agent === undefined ? {} : { agent: parseAddress(query.agent, "agent") }),
    ...(query.txSignature === undefined ? {} : { txSignature: query.txSignature as Signature }),
    ...(query.batchAddress === undefined
      ? {}
      : { batchAddress: parseAddress(query.batchAddress, "batchAddress") as Address }),
    ...(index === undefined ? {} : { index }),
  };
}

function parseProof(proof: readonly string[] | undefined): string[] | undefined {
  if (proof === undefined) return undefined;
  if (!Array.isArray(proof) || proof.length > MAX_PROOF_LENGTH) {
    throw invalid("proof", `expected a list of at most ${MAX_PROOF_LENGTH} sibling hashes`);
  }
  return proof.map((sibling, i) => {
    parseHash(sibling, `proof[${i}]`);
    return sibling.toLowerCase();
  });
}

const sameAttestation = (a: Candidate, b: Candidate): boolean =>
  a.ledger.address === b.ledger.address && a.batchIndex === b.batchIndex;

function privacyModeOf({ ledger, batchIndex }: Candidate): boolean | undefined {
  return ledger.kind === "attestation"
    ? ledger.account.privacyMode
    : ledger.leaves[batchIndex ?? 0]?.privacyMode;
}

async function lookUp(query: ActionQuery, options: LookupOptions): Promise<ActionLookup> {
  assertObject(query, "query");
  const context = lookupContext(options);
  const where = parseWhere(query);
  const proof = parseProof(query.proof);
  const maxCandidates = countOption(options, "maxCandidates", DEFAULT_MAX_CANDIDATES);
  if (searchedBy(where) === "index" && context.index === undefined) {
    throw new AbasError(ABAS_SDK__ATTESTATION_INDEX_REQUIRED, {
      searchingFor: "who attested an action without its agent, txSignature or batchAddress",
    });
  }
  const { hashes, notes } = await hashesToTry(query);
  const salted = query.salt !== undefined;

  const found: { hash: HashToTry; candidate: Candidate }[] = [];
  for (const hash of hashes) {
    const search = await findCandidates(context, hash.storedHash, where);
    notes.push(...search.notes);
    for (const candidate of search.candidates) {
      // A stored hash means the same in one mode only: a commitment is never a plain action hash.
      if (privacyModeOf(candidate) !== salted) continue;
      if (found.some((entry) => sameAttestation(entry.candidate, candidate))) continue;
      found.push({ hash, candidate });
    }
  }
  if (found.length > maxCandidates) {
    notes.push(
      note(
        "too-many-candidates",
        `${found.length} attestations store this hash; the ${maxCandidates} earliest were checked. Give the agent to narrow the search.`,
      ),
    );
  }
  const matches: ActionMatch[] = [];
  for (const { hash, candidate } of found.slice(0, maxCandidates)) {
    const opening = {
      actionHash: hash.actionHash,
      ...(salted ? { salt: query.salt!.toLowerCase() } : {}),
      ...(proof === undefined || candidate.ledger.kind !== "batch" ? {} : { proof }),
    };
    matches.push({ ...(await verifyCandidate(context, candidate, opening)), hash });
  }
  const kept = notesToKeep(notes, found.length > 0);
  return {
    attested: matches.some((match) => match.verified),
    complete: !kept.some((entry) => INCOMPLETE_SEARCH.has(entry.kind)),
    hashes,
    searchedBy: searchedBy(where),
    matches,
    notes: kept,
  };
}

/** Notes that only say one of the hashes tried was not found: moot once another one was. */
const MISSES: ReadonlySet<LookupNoteKind> = new Set([
  "not-indexed",
  "not-in-batch",
  "transaction-wrote-none",
  "batch-items-not-searched",
  "agent-not-registered",
]);

function notesToKeep(notes: readonly LookupNote[], foundAny: boolean): LookupNote[] {
  return notes.filter(
    (entry, i) =>
      !(foundAny && MISSES.has(entry.kind)) &&
      notes.findIndex((other) => other.message === entry.message) === i,
  );
}

/**
 * Finds the attestations of an action on the ledger and verifies each one. The action is its hash
 * or its payload (tried as written and as RFC 8785 canonical JSON), with the salt of a privacy-mode
 * receipt; `agent`, `txSignature` or `batchAddress` say where to look, otherwise `options.index`
 * finds it. Throws `ABAS_SDK__*` for bad input (before any request),
 * `ABAS_SDK__ATTESTATION_INDEX_REQUIRED`, `ABAS_RUNTIME__BATCH_NOT_FOUND`,
 * `ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE`, `ABAS_RUNTIME__TRANSACTION_NOT_FOUND` and
 * `ABAS_RUNTIME__RPC_REQUEST_FAILED`; an attestation that does not check out is a match with
 * `verified: false`, never an error.
 */
export async function findAndVerifyAction(query: ActionQuery, options: LookupOptions): Promise<ActionLookup> {
  return await untilAborted(lookUp(query, options), options?.abortSignal);
}
