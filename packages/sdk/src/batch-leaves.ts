/**
 * A batch's items, read from the ledger alone. BehaviorBatch v2 accounts hold no leaves: the leaves
 * are the instruction data of the batch's `publish_batch_leaves` transactions. The program accepted
 * each chunk only at `start_index = leaves_published`, so the successful chunks tile the batch
 * from 0 without overlap, and once the batch is complete it has checked that they reproduce the
 * signed root; this reads them back and checks the root again.
 */
import { ABAS_RUNTIME__BATCH_LEAVES_UNREADABLE, AbasError } from "@abas/errors";
import {
  bytesToHex,
  computeBatchMerkleRoot,
  decodeBatchAccount,
  decodeProgramInstructions,
  decodePublishBatchLeavesInstructionData,
  type BatchAccount,
  type LeafData,
  type TransactionJsonResponse,
} from "@abas/program-client";
import type { Address, Commitment, Rpc, Signature, SolanaRpcApi } from "@solana/kit";

import { fetchLedgerAccount } from "./ledger-accounts.js";
import { historyCommitment } from "./history-commitment.js";
import { sendRpcRequest } from "./rpc-request.js";

export type LedgerBatch = Readonly<{
  account: BatchAccount;
  /** The published leaves, `leaves[i]` being item `i`: all of them once the batch is complete. */
  leaves: readonly LeafData[];
}>;

export type FetchBatchLeavesInput = Readonly<{
  programId: Address;
  batchAddress: Address;
  commitment: Commitment;
}>;

/** Signatures per `getSignaturesForAddress` page: the RPC maximum. */
const SIGNATURES_PER_PAGE = 1000;

/** Every successful transaction that names the batch, oldest first. */
export async function successfulSignatures(
  rpc: Rpc<SolanaRpcApi>,
  batchAddress: Address,
  commitment: Commitment,
  abortSignal: AbortSignal | undefined,
): Promise<Signature[]> {
  const newestFirst: Signature[] = [];
  let before: Signature | undefined;
  for (;;) {
    const page = await sendRpcRequest(
      "getSignaturesForAddress",
      rpc.getSignaturesForAddress(batchAddress, {
        commitment: historyCommitment(commitment),
        limit: SIGNATURES_PER_PAGE,
        ...(before === undefined ? {} : { before }),
      }),
      abortSignal,
    );
    for (const entry of page) if (entry.err === null) newestFirst.push(entry.signature);
    if (page.length < SIGNATURES_PER_PAGE) break;
    before = page[page.length - 1]!.signature;
  }
  return newestFirst.reverse();
}

export type ReadPublishedLeavesInput = FetchBatchLeavesInput &
  Readonly<{
    /** The batch account, already read and decoded. */
    account: BatchAccount;
    abortSignal?: AbortSignal;
  }>;

/**
 * The published leaves of a batch whose account is already read. Throws
 * `ABAS_RUNTIME__BATCH_LEAVES_UNREADABLE` when the node's transaction history does not give exactly
 * the leaves the account counts, or (complete batch) they do not reproduce its root.
 */
export async function readPublishedLeaves(
  rpc: Rpc<SolanaRpcApi>,
  { programId, batchAddress, commitment, account, abortSignal }: ReadPublishedLeavesInput,
): Promise<LeafData[]> {
  const chunks = new Map<number, readonly LeafData[]>();
  if (account.leavesPublished > 0) {
    for (const signature of await successfulSignatures(rpc, batchAddress, commitment, abortSignal)) {
      const transaction = await sendRpcRequest(
        "getTransaction",
        rpc.getTransaction(signature, {
          encoding: "json",
          maxSupportedTransactionVersion: 0,
          commitment: historyCommitment(commitment),
        }),
        abortSignal,
      );
      if (transaction === null) continue;
      const instructions = decodeProgramInstructions(
        transaction as unknown as TransactionJsonResponse,
        programId,
      );
      for (const instruction of instructions) {
        if (instruction.name !== "publish_batch_leaves" || instruction.namedAccounts.batch !== batchAddress)
          continue;
        const chunk = decodePublishBatchLeavesInstructionData(instruction.data);
        if (chunk !== undefined) chunks.set(chunk.startIndex, chunk.leaves);
      }
    }
  }
  const leaves: LeafData[] = [];
  while (leaves.length < account.leavesPublished) {
    const chunk = chunks.get(leaves.length);
    if (chunk === undefined) break;
    leaves.push(...chunk);
  }
  const unreadable = (reason: string) =>
    new AbasError(ABAS_RUNTIME__BATCH_LEAVES_UNREADABLE, {
      batchAddress,
      leavesPublished: account.leavesPublished,
      leavesFound: leaves.length,
      reason,
    });
  if (leaves.length !== account.leavesPublished) {
    throw unreadable("the node's history lacks a publish_batch_leaves transaction of the batch");
  }
  if (account.isComplete && bytesToHex(computeBatchMerkleRoot(leaves)) !== bytesToHex(account.merkleRoot)) {
    throw unreadable("the leaves do not reproduce the batch's Merkle root");
  }
  return leaves;
}

/**
 * The batch at `batchAddress` and its published leaves, or null when the ledger has no batch of the
 * program there. Throws as `readPublishedLeaves` does.
 */
export async function fetchBatchLeaves(
  rpc: Rpc<SolanaRpcApi>,
  input: FetchBatchLeavesInput,
): Promise<LedgerBatch | null> {
  const ledgerAccount = await fetchLedgerAccount(rpc, input.batchAddress, input.commitment);
  if (ledgerAccount === null || ledgerAccount.owner !== input.programId) return null;
  const account = decodeBatchAccount(ledgerAccount.data);
  return { account, leaves: await readPublishedLeaves(rpc, { ...input, account }) };
}
