/**
 * What the database must hold, computed from the ledger alone with the program client's decoders
 * and the SDK's reading of batch leaves (independently of the indexer's code): every attestation
 * account, every batch and its published items, every agent with its on-chain counters and the
 * refusals counted against it.
 */
import {
  bytesToHex,
  decodeProgramAccount,
  deriveIssuerAddresses,
  getActionTypeName,
  getAgentStatusName,
  getProgramErrorFromTransactionError,
} from "@abas/program-client";
import { getBase58Decoder, getBase64Encoder, type Address, type Signature } from "@solana/kit";

import { IndexerStateKey, type DatabaseHandle } from "@abas/db";
import { fetchBatchLeaves } from "@abas/sdk";

import type { TestLedger } from "./test-ledger.js";

export type AttestationFacts = Readonly<{
  id: string;
  kind: "single" | "batch";
  agent: string;
  operator: string;
  action_type: string;
  privacy: number;
  stored_hash: string;
  agent_signature: string;
  tx_signature: string;
  slot: number;
  timestamp: number;
  batch_address: string | null;
  batch_index: number | null;
  merkle_root: string | null;
}>;

export type BatchFacts = Readonly<{
  address: string;
  agent: string;
  operator: string;
  merkle_root: string;
  item_count: number;
  action_types: number;
  agent_signature: string;
  tx_signature: string;
  slot: number;
  timestamp: number;
  leaves_published: number;
  complete: number;
  items_indexed: number;
}>;

export type AgentFacts = Readonly<{
  agent: string;
  address: string;
  operator: string;
  status: string;
  allowed_action_types: number;
  registered_at: number;
  registered_slot: number;
  updated_at: number;
  attestation_count: number;
  batch_count: number;
  batch_item_count: number;
  last_attested_at: number | null;
  policy_violation_count: number;
}>;

export type DatabaseFacts = Readonly<{
  attestations: AttestationFacts[];
  batches: BatchFacts[];
  agents: AgentFacts[];
  /** Program transactions: how many, and how many failed. */
  transactions: Readonly<{ total: number; failed: number }>;
}>;

const byKey =
  <T>(key: (row: T) => string) =>
  (a: T, b: T): number =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

type SignatureEntry = Readonly<{ signature: Signature; err: unknown }>;

async function allSignatures(ledger: TestLedger, address: Address): Promise<SignatureEntry[]> {
  const entries: SignatureEntry[] = [];
  let before: Signature | undefined;
  for (;;) {
    const page = await ledger.rpc
      .getSignaturesForAddress(address, { limit: 1000, ...(before ? { before } : {}) })
      .send();
    entries.push(...page.map((entry) => ({ signature: entry.signature, err: entry.err })));
    if (page.length < 1000) return entries.reverse();
    before = page[page.length - 1]!.signature;
  }
}

/** The transaction that created an account: the oldest successful one naming it. */
async function creatingTransaction(ledger: TestLedger, account: Address): Promise<string> {
  const created = (await allSignatures(ledger, account)).find((entry) => entry.err === null);
  if (created === undefined) throw new Error(`no successful transaction names ${account}`);
  return created.signature;
}

/** kit turns the RPC's JSON numbers into bigints; the program client reads plain numbers. */
function plainNumbers(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (Array.isArray(value)) return value.map(plainNumbers);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, plainNumbers(entry)]));
  }
  return value;
}

const REFUSALS = new Set(["ActionTypeNotAllowed", "AgentSuspended", "AgentRevoked"]);

/** Refusals per agent account, read from the failed transactions' errors and the refused instruction's accounts. */
async function policyRefusals(
  ledger: TestLedger,
  failed: readonly SignatureEntry[],
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const { signature, err } of failed) {
    const error = getProgramErrorFromTransactionError(plainNumbers(err));
    const name = (error?.context as { programErrorName?: string } | undefined)?.programErrorName;
    if (name === undefined || !REFUSALS.has(name)) continue;
    const transaction = await ledger.rpc
      .getTransaction(signature, { encoding: "json", maxSupportedTransactionVersion: 0 })
      .send();
    const index = (error!.context as { instructionIndex: number }).instructionIndex;
    const instruction = transaction!.transaction.message.instructions[index]!;
    const agentAccount = transaction!.transaction.message.accountKeys[instruction.accounts[1]!]!;
    counts.set(agentAccount, (counts.get(agentAccount) ?? 0) + 1);
  }
  return counts;
}

export async function readLedgerFacts(ledger: TestLedger): Promise<DatabaseFacts> {
  const issuer = await deriveIssuerAddresses(ledger.programId);
  const schemas = { attestation: issuer.attestationSchema.address, batch: issuer.batchSchema.address };
  const accounts = await ledger.rpc.getProgramAccounts(ledger.programId, { encoding: "base64" }).send();
  const base58 = getBase58Decoder();
  const base64 = getBase64Encoder();
  const programSignatures = await allSignatures(ledger, ledger.programId);
  const failed = programSignatures.filter((entry) => entry.err !== null);
  const refusals = await policyRefusals(ledger, failed);

  const attestations: AttestationFacts[] = [];
  const batches: BatchFacts[] = [];
  const agents: AgentFacts[] = [];
  for (const { pubkey, account } of accounts) {
    const decoded = decodeProgramAccount(base64.encode(account.data[0]), { schemas });
    if (decoded.type === "attestation") {
      const a = decoded.account;
      attestations.push({
        id: pubkey,
        kind: "single",
        agent: a.signer,
        operator: a.operator,
        action_type: getActionTypeName(a.actionType),
        privacy: a.privacyMode ? 1 : 0,
        stored_hash: bytesToHex(a.storedHash),
        agent_signature: base58.decode(a.agentSignature),
        tx_signature: await creatingTransaction(ledger, pubkey),
        slot: Number(a.slot),
        timestamp: Number(a.timestamp),
        batch_address: null,
        batch_index: null,
        merkle_root: null,
      });
    } else if (decoded.type === "batch") {
      const b = decoded.account;
      const commit = await creatingTransaction(ledger, pubkey);
      const common = {
        agent: b.signer,
        operator: b.operator,
        agent_signature: base58.decode(b.agentSignature),
        tx_signature: commit,
        slot: Number(b.slot),
        timestamp: Number(b.timestamp),
      };
      batches.push({
        ...common,
        address: pubkey,
        merkle_root: bytesToHex(b.merkleRoot),
        item_count: b.itemCount,
        action_types: b.actionTypes,
        leaves_published: b.leavesPublished,
        complete: b.isComplete ? 1 : 0,
        items_indexed: b.isComplete ? 1 : 0,
      });
      if (b.isComplete) {
        const read = await fetchBatchLeaves(ledger.rpc, {
          programId: ledger.programId,
          batchAddress: pubkey,
          commitment: "confirmed",
        });
        read!.leaves.forEach((leaf, index) =>
          attestations.push({
            ...common,
            id: `${pubkey}:${index}`,
            kind: "batch",
            action_type: getActionTypeName(leaf.actionType),
            privacy: leaf.privacyMode ? 1 : 0,
            stored_hash: bytesToHex(leaf.storedHash),
            batch_address: pubkey,
            batch_index: index,
            merkle_root: bytesToHex(b.merkleRoot),
          }),
        );
      }
    } else if (decoded.type === "agent") {
      const a = decoded.account;
      agents.push({
        agent: a.agent,
        address: pubkey,
        operator: a.operator,
        status: getAgentStatusName(a.status).toLowerCase(),
        allowed_action_types: a.allowedActionTypes,
        registered_at: Number(a.registeredAt),
        registered_slot: Number(a.registeredSlot),
        updated_at: Number(a.updatedAt),
        attestation_count: Number(a.attestationCount),
        batch_count: Number(a.batchCount),
        batch_item_count: Number(a.batchItemCount),
        last_attested_at: a.lastAttestedAt === 0n ? null : Number(a.lastAttestedAt),
        policy_violation_count: refusals.get(pubkey) ?? 0,
      });
    }
  }
  return {
    attestations: attestations.sort(byKey((row) => row.id)),
    batches: batches.sort(byKey((row) => row.address)),
    agents: agents.sort(byKey((row) => row.agent)),
    transactions: { total: programSignatures.length, failed: failed.length },
  };
}

/** The same facts as the database holds them (without seq, indexed_at and state_slot, which are the indexer's own). */
export async function readDatabaseFacts(database: DatabaseHandle): Promise<DatabaseFacts> {
  const { db } = database;
  const attestations = await db.selectFrom("attestations").selectAll().orderBy("id").execute();
  const batches = await db.selectFrom("batches").selectAll().orderBy("address").execute();
  const agents = await db.selectFrom("agents").selectAll().orderBy("agent").execute();
  const processed = await db.selectFrom("processed_transactions").select(["failed"]).execute();
  return {
    // Sorted in JS: the two dialects collate text differently.
    attestations: attestations
      .map(({ seq: _seq, indexed_at: _indexedAt, ...row }) => row)
      .sort(byKey((row) => row.id)),
    batches: [...batches].sort(byKey((row) => row.address)),
    agents: agents.map(({ state_slot: _stateSlot, ...row }) => row).sort(byKey((row) => row.agent)),
    transactions: { total: processed.length, failed: processed.filter((row) => row.failed === 1).length },
  };
}

/** Resolves once the indexer's cursor is the program's newest transaction. */
export async function waitUntilCaughtUp(
  ledger: TestLedger,
  database: DatabaseHandle,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [newest] = await ledger.rpc.getSignaturesForAddress(ledger.programId, { limit: 1 }).send();
    const cursor = await database.db
      .selectFrom("indexer_state")
      .select("value")
      .where("key", "=", IndexerStateKey.CursorSignature)
      .executeTakeFirst();
    if (newest !== undefined && cursor?.value === newest.signature) return;
    if (Date.now() > deadline) {
      throw new Error(
        `the indexer did not catch up in ${timeoutMs} ms (cursor ${cursor?.value}, newest ${newest?.signature})`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function readState(database: DatabaseHandle): Promise<Map<string, string>> {
  const rows = await database.db.selectFrom("indexer_state").select(["key", "value"]).execute();
  return new Map(rows.map((row) => [row.key, row.value]));
}
