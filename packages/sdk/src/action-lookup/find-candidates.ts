/**
 * Where on the ledger an attestation of a stored hash may be, from the most precise reference given:
 *
 * - `batchAddress`: that batch account; its published leaves say which item stores the hash (or
 *   `index` names it);
 * - `txSignature`: the accounts that transaction wrote;
 * - `agent`: the attestation account at its address (a PDA of agent and stored hash); the agent's
 *   batch items through the index, when there is one;
 * - none of them: the index, searched by stored hash, oldest first.
 *
 * Every candidate is an account read from the ledger; the index only points at accounts.
 */
import {
  ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE,
  ABAS_RUNTIME__BATCH_NOT_FOUND,
  ABAS_RUNTIME__TRANSACTION_NOT_FOUND,
  AbasError,
} from "@abas/errors";
import { bytesToHex, deriveAgentAddress, deriveAttestationAddress, hexToBytes } from "@abas/program-client";
import type { Address, Signature } from "@solana/kit";

import { historyCommitment } from "../history-commitment.js";
import { fetchLedgerAccount } from "../ledger-accounts.js";
import { sendRpcRequest } from "../rpc-request.js";
import type { AttestationIndex, IndexedAttestationPage, IndexedAttestationRef } from "./attestation-index.js";
import {
  readLedgerAttestation,
  readLedgerAttestations,
  type LedgerAttestation,
} from "./ledger-attestations.js";
import type { LookupContext } from "./lookup-context.js";
import { note, type LookupNote } from "./lookup-notes.js";
import type { Candidate } from "./verify-candidate.js";

export type SearchedBy = "batchAddress" | "txSignature" | "agent" | "index";

export type Where = Readonly<{
  agent?: Address;
  txSignature?: Signature;
  batchAddress?: Address;
  index?: number;
}>;

export type CandidateSearch = { candidates: Candidate[]; notes: LookupNote[] };

/** The most the REST API lists in one page. */
const INDEX_PAGE_SIZE = 100;

/**
 * The attestations the index lists for a stored hash, as the search checks them: oldest first, so
 * the first to attest a hash is checked before later copies, and one item per batch, so a batch
 * that repeats a hash counts once. Reads up to `maxIndexEntries` and says when more are left.
 */
async function searchIndex(
  index: AttestationIndex,
  maxIndexEntries: number,
  query: Readonly<{ storedHash: string; agent?: string }>,
  notes: LookupNote[],
): Promise<IndexedAttestationRef[]> {
  const listed: IndexedAttestationRef[] = [];
  let cursor: string | null = null;
  do {
    const page: IndexedAttestationPage = await index.findAttestations({
      ...query,
      limit: Math.min(INDEX_PAGE_SIZE, maxIndexEntries - listed.length),
      ...(cursor === null ? {} : { cursor }),
    });
    listed.push(...page.entries);
    cursor = page.nextCursor;
  } while (cursor !== null && listed.length < maxIndexEntries);
  if (cursor !== null) {
    notes.push(
      note(
        "index-page-full",
        `The index holds more than ${listed.length} attestations storing ${query.storedHash}; only the ` +
          `${listed.length} newest were searched, so older ones (the first to attest it among them) were not ` +
          "checked. Give the agent, the txSignature or the batchAddress to look there directly.",
      ),
    );
  }
  const seen = new Set<string>();
  return listed.reverse().filter((entry) => {
    if (seen.has(entry.address)) return false;
    seen.add(entry.address);
    return true;
  });
}

const describe = (candidate: Candidate): string =>
  candidate.ledger.kind === "attestation"
    ? `attestation ${candidate.ledger.address}`
    : `${candidate.batchIndex === undefined ? "an item" : `item ${candidate.batchIndex + 1}`} of batch ${candidate.ledger.address}`;

/** The items of a ledger attestation that store the hash (or, for a batch, the item `index`). */
function itemsStoring(
  ledger: LedgerAttestation,
  storedHash: string,
  index: number | undefined,
  txSignature: string | undefined,
): Candidate[] {
  const tx = txSignature === undefined ? {} : { txSignature };
  if (ledger.kind === "attestation") {
    return bytesToHex(ledger.account.storedHash) === storedHash ? [{ ledger, ...tx }] : [];
  }
  return ledger.leaves.flatMap((leaf, i) =>
    (index === undefined ? bytesToHex(leaf.storedHash) === storedHash : i === index)
      ? [{ ledger, batchIndex: i, ...tx }]
      : [],
  );
}

/** With `agent` given, attestations by other agents are left out, and said so. */
function onlyByAgent(search: CandidateSearch, agent: Address | undefined): CandidateSearch {
  if (agent === undefined) return search;
  const notes = [...search.notes];
  for (const other of search.candidates.filter((c) => c.ledger.account.signer !== agent)) {
    notes.push(
      note(
        "other-agent",
        `Left out: ${describe(other)} was attested by agent ${other.ledger.account.signer}, not by the agent given (${agent}).`,
      ),
    );
  }
  return { candidates: search.candidates.filter((c) => c.ledger.account.signer === agent), notes };
}

async function inBatch(context: LookupContext, storedHash: string, where: Where): Promise<CandidateSearch> {
  const batchAddress = where.batchAddress!;
  const ledger = await readLedgerAttestation(context, batchAddress);
  if (ledger === null || ledger.kind !== "batch") {
    throw new AbasError(ABAS_RUNTIME__BATCH_NOT_FOUND, { batchAddress, programId: context.programId });
  }
  const { account } = ledger;
  const { index } = where;
  if (index !== undefined && index >= account.itemCount) {
    throw new AbasError(ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE, {
      batchAddress,
      index,
      itemCount: account.itemCount,
    });
  }
  const notes: LookupNote[] = [];
  if (index !== undefined && index >= account.leavesPublished) {
    notes.push(
      note(
        "item-not-published",
        `Item ${index} of batch ${batchAddress} is not published on the ledger yet (${account.leavesPublished} of ` +
          `${account.itemCount} leaves): it cannot be verified until the operator publishes the rest (the SDK's completeBatch).`,
      ),
    );
  }
  const candidates = itemsStoring(ledger, storedHash, index, where.txSignature);
  if (index === undefined && candidates.length === 0) {
    notes.push(
      note(
        "not-in-batch",
        account.isComplete
          ? `None of the ${account.itemCount} items of batch ${batchAddress} stores ${storedHash}.`
          : `Only ${account.leavesPublished} of the ${account.itemCount} leaves of batch ${batchAddress} are published, ` +
              `and none of them stores ${storedHash}.`,
      ),
    );
  }
  return onlyByAgent({ candidates, notes }, where.agent);
}

async function inTransaction(
  context: LookupContext,
  storedHash: string,
  where: Where,
): Promise<CandidateSearch> {
  const signature = where.txSignature!;
  const found = await sendRpcRequest(
    "getTransaction",
    context.rpc.getTransaction(signature, {
      encoding: "json",
      maxSupportedTransactionVersion: 0,
      commitment: historyCommitment(context.commitment),
    }),
    context.abortSignal,
  );
  if (found === null) throw new AbasError(ABAS_RUNTIME__TRANSACTION_NOT_FOUND, { signature });
  if (found.meta === null || found.meta.err !== null) {
    return {
      candidates: [],
      notes: [
        note("transaction-failed", `Transaction ${signature} failed on the ledger, so it recorded nothing.`),
      ],
    };
  }
  const written = [
    ...(await readLedgerAttestations(context, found.transaction.message.accountKeys)).values(),
  ];
  const search = onlyByAgent(
    {
      candidates: written.flatMap((ledger) => itemsStoring(ledger, storedHash, where.index, signature)),
      notes: [],
    },
    where.agent,
  );
  if (search.candidates.length === 0 && search.notes.length === 0) {
    const accounts = written.map((l) => `${l.kind === "attestation" ? "attestation" : "batch"} ${l.address}`);
    search.notes.push(
      note(
        "transaction-wrote-none",
        written.length === 0
          ? `Transaction ${signature} wrote no ABAS attestation account.`
          : `Transaction ${signature} wrote ${accounts.join(", ")}, none of which stores ${storedHash}.`,
      ),
    );
  }
  return search;
}

/** The ledger accounts behind index entries; entries with no such account there become notes. */
async function fromIndexEntries(
  context: LookupContext,
  storedHash: string,
  entries: readonly IndexedAttestationRef[],
  notes: LookupNote[],
): Promise<Candidate[]> {
  const found = await readLedgerAttestations(
    context,
    entries.map((entry) => entry.address as Address),
  );
  return entries.flatMap((entry): Candidate[] => {
    const ledger = found.get(entry.address as Address);
    if (ledger?.kind === "attestation" && entry.batchIndex === null) {
      return itemsStoring(ledger, storedHash, undefined, entry.txSignature);
    }
    if (ledger?.kind === "batch" && entry.batchIndex !== null) {
      return itemsStoring(ledger, storedHash, undefined, entry.txSignature).filter(
        (candidate) => candidate.batchIndex === entry.batchIndex,
      );
    }
    notes.push(
      note(
        "index-points-elsewhere",
        `The index lists ${entry.address} (agent ${entry.agent}), but the ledger has no such attestation account ` +
          `of program ${context.programId}: the index may follow another ledger.`,
      ),
    );
    return [];
  });
}

async function byAgent(context: LookupContext, storedHash: string, where: Where): Promise<CandidateSearch> {
  const agent = where.agent!;
  const notes: LookupNote[] = [];
  const { address } = await deriveAttestationAddress(context.programId, agent, hexToBytes(storedHash, 32));
  const single = await readLedgerAttestation(context, address);
  const candidates = single === null ? [] : itemsStoring(single, storedHash, undefined, undefined);
  if (candidates.length > 0) return { candidates, notes };
  // A batch item has no account of its own: the index knows which batch holds it.
  if (context.index === undefined) {
    notes.push(
      note(
        "batch-items-not-searched",
        "Batch items were not searched: they are found through an attestation index, and none was given. Or pass the receipt's batchAddress.",
      ),
    );
  } else {
    let entries: readonly IndexedAttestationRef[] | undefined;
    try {
      entries = await searchIndex(context.index, context.maxIndexEntries, { storedHash, agent }, notes);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      notes.push(
        note("batch-items-not-searched", `Batch items were not searched: the index failed: ${reason}`),
      );
    }
    if (entries !== undefined) {
      const items = entries.filter((entry) => entry.batchIndex !== null);
      candidates.push(...(await fromIndexEntries(context, storedHash, items, notes)));
    }
  }
  if (candidates.length === 0) {
    const { address: agentAddress } = await deriveAgentAddress(context.programId, agent);
    const registration = await fetchLedgerAccount(context.rpc, agentAddress, context.commitment);
    if (registration === null || registration.owner !== context.programId) {
      notes.push(
        note(
          "agent-not-registered",
          `No agent ${agent} is registered with the ABAS program ${context.programId} on this ledger.`,
        ),
      );
    }
  }
  return { candidates, notes };
}

async function inIndex(context: LookupContext, storedHash: string): Promise<CandidateSearch> {
  const notes: LookupNote[] = [];
  const entries = await searchIndex(context.index!, context.maxIndexEntries, { storedHash }, notes);
  if (entries.length === 0) {
    notes.push(note("not-indexed", `The index holds no attestation that stores ${storedHash}.`));
  }
  return { candidates: await fromIndexEntries(context, storedHash, entries, notes), notes };
}

export function searchedBy(where: Where): SearchedBy {
  if (where.batchAddress !== undefined) return "batchAddress";
  if (where.txSignature !== undefined) return "txSignature";
  if (where.agent !== undefined) return "agent";
  return "index";
}

export async function findCandidates(
  context: LookupContext,
  storedHash: string,
  where: Where,
): Promise<CandidateSearch> {
  switch (searchedBy(where)) {
    case "batchAddress":
      return await inBatch(context, storedHash, where);
    case "txSignature":
      return await inTransaction(context, storedHash, where);
    case "agent":
      return await byAgent(context, storedHash, where);
    case "index":
      return await inIndex(context, storedHash);
  }
}
