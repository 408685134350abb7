/**
 * One poll: everything the program did since the checkpoint, applied oldest first, a chunk at a
 * time. A chunk's transactions are fetched with one JSON-RPC batch and the accounts they touched
 * with another (one `getMultipleAccounts` per group), the next chunk's while this one is applied
 * in ONE database transaction with the checkpoint. Polling alone is complete; the
 * subscription only makes it start sooner.
 */
import type { Address, Commitment, Rpc, Signature, SolanaRpcApi } from "@solana/kit";

import { MAX_ACCOUNTS_PER_SNAPSHOT, readAccountSnapshots } from "./account-snapshot.js";
import { applyLedgerTransactions, type LedgerTransactionToApply } from "./apply-ledger-transaction.js";
import { readCheckpoint, writeHeartbeat } from "./checkpoint-store.js";
import type { IndexerDatabase } from "./indexer-database.js";
import { writeAsLeader, type LeaderLease } from "./leadership/leader-lease.js";
import { checkCheckpointOnLedger } from "./ledger-agreement.js";
import { checkLedgerIdentity } from "./ledger-identity.js";
import type { Logger } from "./logger.js";
import { rpcRequestOptions } from "./rpc-request-options.js";
import { listSignaturesSince, type LedgerSignature } from "./signature-scanner.js";
import { accountsToRead, type ProgramTransaction } from "./transaction-decoder.js";
import { fetchProgramTransactions, TransactionNotYetAvailableError } from "./transaction-fetcher.js";

/** Transactions fetched in one JSON-RPC batch and applied in one database transaction. */
export const CHUNK_SIZE = 250;

export type PollProgress = Readonly<{ processed: number; total: number }>;

export type PollOptions = Readonly<{
  rpc: Rpc<SolanaRpcApi>;
  /** The same ledger's HTTP JSON-RPC URL, for batches (which kit's client does not send). */
  rpcUrl: string;
  programId: Address;
  commitment: Commitment;
  db: IndexerDatabase;
  logger: Logger;
  /** Throws to abort the poll between two chunks (stopping, or leadership lost). */
  assertActive: () => void;
  /** Every write is fenced by the leader lease: a stale leader's writes are refused. */
  lease: Pick<LeaderLease, "fence" | "holder">;
  onProgress?: (progress: PollProgress) => void;
  now?: () => number;
}>;

export type PollResult = Readonly<{
  /** Program transactions newer than the checkpoint. */
  listed: number;
  applied: number;
  /** Listed but already applied (only after an inconsistent cursor, such as a ledger reset). */
  alreadyApplied: number;
  /** The ledger slot read before listing: everything up to it is now applied. */
  headSlot: bigint;
}>;

function successfulAccounts(transaction: ProgramTransaction): Address[] {
  return transaction.error === null ? transaction.instructions.flatMap(accountsToRead) : [];
}

/** Consecutive groups whose accounts fit one `getMultipleAccounts` call. */
function groupForSnapshots(transactions: readonly ProgramTransaction[]): ProgramTransaction[][] {
  const groups: ProgramTransaction[][] = [];
  let group: ProgramTransaction[] = [];
  let accounts = new Set<Address>();
  for (const transaction of transactions) {
    const needed = successfulAccounts(transaction);
    const merged = new Set([...accounts, ...needed]);
    if (group.length > 0 && merged.size > MAX_ACCOUNTS_PER_SNAPSHOT) {
      groups.push(group);
      group = [];
      accounts = new Set(needed);
    } else {
      accounts = merged;
    }
    group.push(transaction);
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

async function findApplied(db: IndexerDatabase, signatures: readonly Signature[]): Promise<Set<string>> {
  if (signatures.length === 0) return new Set();
  const rows = await db
    .selectFrom("processed_transactions")
    .select("signature")
    .where("signature", "in", signatures)
    .execute();
  return new Set(rows.map((row) => row.signature));
}

export async function pollLedger(options: PollOptions): Promise<PollResult> {
  const { rpc, rpcUrl, programId, commitment, db, logger, assertActive, lease } = options;
  const now = options.now ?? Date.now;
  await checkLedgerIdentity(rpc, db, lease, logger);
  const headSlot = await rpc.getSlot({ commitment }).send(rpcRequestOptions());
  const checkpoint = await readCheckpoint(db);
  if (checkpoint !== undefined) await checkCheckpointOnLedger(rpc, db, lease, checkpoint, logger);
  const listed = await listSignaturesSince(rpc, programId, checkpoint?.signature, commitment);
  if (listed.length > 0)
    logger.debug({ count: listed.length, since: checkpoint?.signature }, "new program transactions");
  options.onProgress?.({ processed: 0, total: listed.length });

  let applied = 0;
  let alreadyApplied = 0;
  const chunks: LedgerSignature[][] = [];
  for (let start = 0; start < listed.length; start += CHUNK_SIZE) {
    chunks.push(listed.slice(start, start + CHUNK_SIZE));
  }
  // The transactions of a chunk are immutable, so the next chunk is fetched, with the accounts it
  // touched, while this one is applied; chunks are still fetched one after the other.
  const prefetch = async (chunk: readonly LedgerSignature[]) => {
    const done = await findApplied(
      db,
      chunk.map((entry) => entry.signature),
    );
    const toFetch = chunk.filter((entry) => !done.has(entry.signature)).map((entry) => entry.signature);
    const transactions = await fetchProgramTransactions(rpcUrl, programId, toFetch, commitment);
    const groups = groupForSnapshots(transactions);
    const snapshots = await readAccountSnapshots(
      rpcUrl,
      programId,
      groups.map((group) => group.flatMap(successfulAccounts)),
      commitment,
    );
    const toApply: LedgerTransactionToApply[] = [];
    groups.forEach((group, i) => {
      const snapshot = snapshots[i]!;
      const newestSlot = group.reduce(
        (slot, transaction) => (transaction.slot > slot ? transaction.slot : slot),
        0n,
      );
      if (snapshot.slot < newestSlot) {
        // A load-balanced RPC can answer from a node behind the one that listed the transactions.
        throw new TransactionNotYetAvailableError(
          `accounts read at slot ${snapshot.slot}, before transactions of slot ${newestSlot}`,
        );
      }
      for (const transaction of group) toApply.push({ transaction, snapshot });
    });
    return { done, toApply };
  };
  let next = chunks.length > 0 ? prefetch(chunks[0]!) : undefined;
  let processed = 0;
  for (let index = 0; index < chunks.length; index++) {
    const chunk = chunks[index]!;
    const { done, toApply } = await next!;
    // The ledger serves the next chunk while this one is written.
    next = index + 1 < chunks.length ? prefetch(chunks[index + 1]!) : undefined;
    // Awaited on the next turn; until then a failure must not count as unhandled.
    next?.catch(() => undefined);
    alreadyApplied += done.size;
    const last = chunk[chunk.length - 1]!;
    assertActive();
    const result = await applyLedgerTransactions(db, {
      programId,
      transactions: toApply,
      checkpoint: { signature: last.signature, slot: Number(last.slot) },
      logger,
      now: now(),
      appliedBy: lease.holder,
      fence: lease.fence,
    });
    applied += result.applied;
    alreadyApplied += result.alreadyApplied;
    processed += chunk.length;
    options.onProgress?.({ processed, total: listed.length });
  }
  assertActive();
  await writeAsLeader(db, lease, (trx) => writeHeartbeat(trx, headSlot, now()));
  return { listed: listed.length, applied, alreadyApplied, headSlot };
}
