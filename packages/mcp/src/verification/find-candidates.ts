/**
 * Where on the ledger an attestation of the hash could be, from the most precise reference given:
 *
 * - `batchAddress`: that batch account, read from the ledger; its published leaves (the data of its
 *   `publish_batch_leaves` transactions) say which item stores the hash (or `index` names it);
 * - `txSignature`: the accounts that transaction wrote, read from the ledger;
 * - `agent`: the attestation account at its address (a PDA of agent and stored hash), read from the
 *   ledger; batch items of the agent through the REST API's index, when a key is set;
 * - none of them: the REST API's index, searched by stored hash.
 *
 * Every candidate is an account read from the ledger. What the index says only points at accounts.
 */
import {
  bytesToHex,
  deriveAttestationAddress,
  type AttestationAccount,
  type BatchAccount,
  type LeafData,
} from "@abas/program-client";
import type { ApiAttestation } from "@abas/sdk";
import type { Address, ReadonlyUint8Array, Signature } from "@solana/kit";

import type { DecodedAttestation } from "../ledger/ledger-reader.js";
import type { ToolContext } from "../tool-context.js";
import { KEY_COMMAND, ToolFailure, fromApiError, invalidInput } from "../tool-failure.js";
import type { ResolvedAction } from "./resolve-action.js";

export type SearchedBy = "batchAddress" | "txSignature" | "agent" | "index";

export type Candidate =
  | Readonly<{
      kind: "single";
      address: Address;
      account: AttestationAccount;
      txSignature: Signature | undefined;
    }>
  | Readonly<{
      kind: "batch-item";
      address: Address;
      account: BatchAccount;
      /** The batch's published leaves, from its `publish_batch_leaves` transactions. */
      leaves: readonly LeafData[];
      index: number;
      txSignature: Signature | undefined;
    }>;

export type CandidateSearch = Readonly<{
  searchedBy: SearchedBy;
  candidates: Candidate[];
  notes: string[];
}>;

export type VerifyQuery = Readonly<{
  action: ResolvedAction;
  agent: Address | undefined;
  txSignature: Signature | undefined;
  batchAddress: Address | undefined;
  index: number | undefined;
}>;

/** At most this many attestations of one hash are checked against the ledger. */
export const MAX_CANDIDATES = 10;
const INDEX_PAGE_SIZE = 20;

const sameBytes = (a: ReadonlyUint8Array, b: ReadonlyUint8Array): boolean =>
  a.length === b.length && a.every((byte, i) => byte === b[i]);

/** The items of a batch that store the hash (or the item `index`), among its published leaves. */
function itemsOf(
  decoded: Extract<DecodedAttestation, { kind: "batch" }>,
  storedHash: Uint8Array,
  index: number | undefined,
  txSignature: Signature | undefined,
): Candidate[] {
  const { address, account, leaves } = decoded;
  return leaves.flatMap((leaf, i) =>
    (index === undefined ? sameBytes(leaf.storedHash, storedHash) : i === index)
      ? [{ kind: "batch-item" as const, address, account, leaves, index: i, txSignature }]
      : [],
  );
}

function candidatesIn(
  decoded: readonly DecodedAttestation[],
  query: VerifyQuery,
  txSignature: Signature | undefined,
): Candidate[] {
  return decoded.flatMap((entry): Candidate[] => {
    if (entry.kind === "batch") return itemsOf(entry, query.action.storedHash, query.index, txSignature);
    return sameBytes(entry.account.storedHash, query.action.storedHash)
      ? [{ kind: "single", address: entry.address, account: entry.account, txSignature }]
      : [];
  });
}

/** With `agent` given, attestations by other agents are left out, and said so. */
function onlyByAgent(candidates: Candidate[], query: VerifyQuery, notes: string[]): Candidate[] {
  if (query.agent === undefined) return candidates;
  const others = candidates.filter((candidate) => candidate.account.signer !== query.agent);
  for (const other of others) {
    notes.push(
      `Left out: ${describe(other)} was attested by agent ${other.account.signer}, not by the agent given (${query.agent}).`,
    );
  }
  return candidates.filter((candidate) => candidate.account.signer === query.agent);
}

const describe = (candidate: Candidate): string =>
  candidate.kind === "single"
    ? `attestation ${candidate.address}`
    : `item ${candidate.index} of batch ${candidate.address}`;

function ledgerSettings(context: ToolContext): string {
  return `ABAS_RPC_URL=${context.config.rpcUrl}, ABAS_PROGRAM_ID=${context.config.programId}`;
}

async function fromBatchAccount(
  batchAddress: Address,
  query: VerifyQuery,
  context: ToolContext,
): Promise<CandidateSearch> {
  const decoded = await context.ledger.getAttestation(batchAddress);
  if (decoded === null || decoded.kind !== "batch") {
    throw new ToolFailure(
      "not_found",
      `The ledger has no ABAS batch attestation at batchAddress ${batchAddress} (${ledgerSettings(context)}). ` +
        "Check the receipt's batchAddress, and that these settings name the ledger and program the batch was recorded with.",
    );
  }
  const { account } = decoded;
  const { index } = query;
  if (index !== undefined && index >= account.itemCount) {
    throw invalidInput(
      "index",
      `must be below the batch's item count, ${account.itemCount} (items are numbered from 0).`,
    );
  }
  const notes: string[] = [];
  if (index !== undefined && index >= account.leavesPublished) {
    notes.push(
      `Item ${index} of batch ${batchAddress} is not published on the ledger yet (${account.leavesPublished} of ` +
        `${account.itemCount} leaves): it cannot be verified until the operator publishes the rest (the SDK's completeBatch).`,
    );
  } else if (
    index === undefined &&
    !decoded.leaves.some((leaf) => sameBytes(leaf.storedHash, query.action.storedHash))
  ) {
    notes.push(
      account.isComplete
        ? `None of the ${account.itemCount} items of batch ${batchAddress} stores ${bytesToHex(query.action.storedHash)}.`
        : `Only ${account.leavesPublished} of the ${account.itemCount} leaves of batch ${batchAddress} are published, ` +
            `and none of them stores ${bytesToHex(query.action.storedHash)}.`,
    );
  }
  const candidates = onlyByAgent(
    itemsOf(decoded, query.action.storedHash, index, query.txSignature),
    query,
    notes,
  );
  return { searchedBy: "batchAddress", candidates, notes };
}

async function fromTransaction(
  txSignature: Signature,
  query: VerifyQuery,
  context: ToolContext,
): Promise<CandidateSearch> {
  const transaction = await context.ledger.getTransaction(txSignature);
  if (transaction === null) {
    throw new ToolFailure(
      "not_found",
      `The ledger has no transaction ${txSignature} (ABAS_RPC_URL=${context.config.rpcUrl}). Check the ` +
        "receipt's txSignature, and that ABAS_RPC_URL is the ledger it was sent to.",
    );
  }
  const notes: string[] = [];
  if (!transaction.succeeded) {
    notes.push(`Transaction ${txSignature} failed on the ledger, so it recorded nothing.`);
    return { searchedBy: "txSignature", candidates: [], notes };
  }
  const decoded = await context.ledger.getAttestations(transaction.accountKeys);
  const candidates = onlyByAgent(candidatesIn(decoded, query, txSignature), query, notes);
  if (candidates.length === 0 && notes.length === 0) {
    notes.push(
      decoded.length === 0
        ? `Transaction ${txSignature} wrote no ABAS attestation account.`
        : `Transaction ${txSignature} wrote ${decoded.map((entry) => `${entry.kind === "single" ? "attestation" : "batch"} ${entry.address}`).join(", ")}, ` +
            `none of which stores ${bytesToHex(query.action.storedHash)}.`,
    );
  }
  return { searchedBy: "txSignature", candidates, notes };
}

/** The ledger accounts behind index records; records with no account there become notes. */
async function accountsOfIndexRecords(
  records: readonly ApiAttestation[],
  query: VerifyQuery,
  context: ToolContext,
  notes: string[],
): Promise<Candidate[]> {
  const addressOf = (record: ApiAttestation): Address => (record.batch?.address ?? record.id) as Address;
  const addresses = [...new Set(records.map(addressOf))];
  const decoded = await context.ledger.getAttestations(addresses);
  return records.flatMap((record): Candidate[] => {
    const entry = decoded.find((candidate) => candidate.address === addressOf(record));
    const txSignature = record.txSignature as Signature;
    if (entry?.kind === "single" && record.batch === null) {
      return candidatesIn([entry], query, txSignature);
    }
    if (entry?.kind === "batch" && record.batch !== null) {
      return itemsOf(entry, query.action.storedHash, record.batch.index, txSignature);
    }
    notes.push(
      `The index lists ${record.id} (agent ${record.agent}), but the ledger has no such attestation account ` +
        `(${ledgerSettings(context)}): the REST API may be indexing another ledger.`,
    );
    return [];
  });
}

async function fromAgent(agent: Address, query: VerifyQuery, context: ToolContext): Promise<CandidateSearch> {
  const notes: string[] = [];
  const { address } = await deriveAttestationAddress(
    context.config.programId,
    agent,
    query.action.storedHash,
  );
  const single = await context.ledger.getAttestation(address);
  const candidates: Candidate[] = single === null ? [] : candidatesIn([single], query, undefined);

  // A batch item has no account of its own: the index knows which batch holds it.
  if (candidates.length > 0) return { searchedBy: "agent", candidates, notes };
  if (context.api === undefined) {
    notes.push(
      "Batch items were not searched: they are found through the ABAS REST API, and ABAS_API_KEY is not set " +
        `(create a key with \`${KEY_COMMAND}\`). Or pass the receipt's batchAddress.`,
    );
  } else {
    try {
      const page = await context.api.listAttestations({
        agent,
        storedHash: bytesToHex(query.action.storedHash),
        limit: INDEX_PAGE_SIZE,
      });
      const items = page.data.filter((record) => record.batch !== null);
      candidates.push(...(await accountsOfIndexRecords(items, query, context, notes)));
    } catch (error) {
      if (error instanceof ToolFailure && error.kind.startsWith("ledger")) throw error;
      notes.push(`Batch items were not searched: ${fromApiError(error, context.config).message}`);
    }
  }
  if (candidates.length === 0 && (await context.ledger.getAgent(agent)) === null) {
    notes.push(
      `No agent ${agent} is registered with the ABAS program on this ledger (${ledgerSettings(context)}).`,
    );
  }
  return { searchedBy: "agent", candidates, notes };
}

async function fromIndex(query: VerifyQuery, context: ToolContext): Promise<CandidateSearch> {
  const api = context.requireApi(
    "Finding who attested a hash without `agent`, `txSignature` or `batchAddress`",
  );
  const storedHash = bytesToHex(query.action.storedHash);
  const page = await api.listAttestations({ storedHash, limit: INDEX_PAGE_SIZE }).catch((error: unknown) => {
    throw fromApiError(error, context.config);
  });
  const notes: string[] = [];
  if (page.data.length === 0) {
    notes.push(`The ABAS index holds no attestation that stores ${storedHash}.`);
  }
  const candidates = await accountsOfIndexRecords(page.data, query, context, notes);
  return { searchedBy: "index", candidates, notes };
}

export async function findCandidates(query: VerifyQuery, context: ToolContext): Promise<CandidateSearch> {
  const search = query.batchAddress
    ? await fromBatchAccount(query.batchAddress, query, context)
    : query.txSignature
      ? await fromTransaction(query.txSignature, query, context)
      : query.agent
        ? await fromAgent(query.agent, query, context)
        : await fromIndex(query, context);
  if (search.candidates.length > MAX_CANDIDATES) {
    search.notes.push(
      `${search.candidates.length} attestations store this hash; the first ${MAX_CANDIDATES} were checked. Pass \`agent\` to narrow the search.`,
    );
  }
  return { ...search, candidates: search.candidates.slice(0, MAX_CANDIDATES) };
}
