import {
  ABAS_RUNTIME__BATCH_LEAVES_NOT_PUBLISHED,
  ABAS_SDK__INVALID_ARGUMENT,
  AbasError,
} from "@abas/errors";
import {
  actionTypesFromMask,
  actionTypesMask,
  buildAttestBatchInstruction,
  buildBatchMessage,
  buildEd25519VerifyInstruction,
  buildInclusionProofs,
  bytesToHex,
  computeLeafHash,
  computeMerkleRoot,
  decodeBatchAccount,
  deriveBatchAddress,
  getActionTypeName,
  type LeafData,
} from "@abas/program-client";
import type { Address, TransactionSigner } from "@solana/kit";

import { signWithAgent } from "./agent-signature.js";
import { withRegisteredAgent } from "./agent-registration.js";
import { prepareStoredHash, type AttestInput } from "./attest.js";
import type { ClientContext } from "./client-context.js";
import { getTransactionExplorerUrl } from "./explorer-url.js";
import { successfulSignatures } from "./batch-leaves.js";
import { assertBatchItems, assertObject, parseAction, type ParsedAction } from "./input-validation.js";
import { fetchLedgerAccount } from "./ledger-accounts.js";
import { prepareKeypair, type KeypairSource } from "./keypair.js";
import { publishBatchLeaves } from "./publish-batch-leaves.js";
import type { BatchAttestationResult, BatchItemReceipt } from "./receipts.js";
import { fetchRecordedAccount } from "./recorded-account.js";
import { signatureToBase58 } from "./records.js";
import {
  sendAndConfirmTransaction,
  withSharedBlockhash,
  type TransactionToSend,
} from "./send-transaction.js";

export type BatchAttestItem = Omit<AttestInput, "operatorKeypair">;

/** Where a batch stands: reported once its root is recorded, then after each chunk of leaves. */
export type BatchProgress = Readonly<{
  stage: "root-recorded" | "leaves-published";
  /** The transaction that just confirmed. */
  txSignature: string;
  leavesPublished: number;
  itemCount: number;
}>;

export type BatchAttestInput = Readonly<{
  operatorKeypair: KeypairSource;
  /** 1 to 100 actions. */
  attestations: readonly BatchAttestItem[];
  /** Progress reports; an exception it throws is ignored, so it cannot leave a batch half published. */
  onProgress?: (progress: BatchProgress) => void;
}>;

function parseProgressCallback(value: unknown): ((progress: BatchProgress) => void) | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "function") {
    throw new AbasError(ABAS_SDK__INVALID_ARGUMENT, {
      argument: "onProgress",
      reason: "expected a function",
    });
  }
  return (progress) => {
    try {
      (value as (progress: BatchProgress) => void)(progress);
    } catch {
      // See BatchAttestInput.onProgress.
    }
  };
}

/**
 * Records up to 100 actions with ONE transaction: the agent signs the Merkle root of the items and
 * the program stores it (Ed25519 precompile + `attest_batch`). The leaves then follow in as few
 * `publish_batch_leaves` transactions as fit, so anyone can enumerate the items from the ledger;
 * the program checks the complete set against the signed root.
 */
export async function batchAttest(
  context: ClientContext,
  input: BatchAttestInput,
): Promise<BatchAttestationResult> {
  assertObject(input, "input");
  const operatorKeypair = prepareKeypair(input.operatorKeypair, "operatorKeypair");
  assertBatchItems(input.attestations);
  const items = input.attestations.map((item, index) => parseAction(item, `attestations[${index}]`));
  const reportProgress = parseProgressCallback(input.onProgress);

  const prepared = items.map((item) => ({
    ...item,
    ...prepareStoredHash(item.actionHash, item.privacyMode),
  }));
  const operator = await operatorKeypair.getSigner();
  return await recordBatch(context, operator, prepared, { reportProgress, resumeRecordedRoot: false });
}

/** A batch item whose stored hash (and, in privacy mode, salt) is already fixed. */
export type PreparedBatchItem = ParsedAction & Readonly<{ storedHash: Uint8Array; salt?: Uint8Array }>;

export type RecordBatchOptions = Readonly<{
  reportProgress?: ((progress: BatchProgress) => void) | undefined;
  /**
   * When the ledger already holds a batch with this root (a previous run recorded it), continue
   * with its missing leaves instead of sending the root again.
   */
  resumeRecordedRoot: boolean;
}>;

/** The transaction that recorded the batch's root: sent now, or found in the ledger's history. */
async function recordBatchRoot(
  context: ClientContext,
  operator: TransactionSigner,
  batchAddress: Address,
  resumeRecordedRoot: boolean,
  instructions: TransactionToSend["instructions"],
  computeUnitsKey: string,
): Promise<string> {
  const { programId, commitment } = context.settings;
  const findRecordingTransaction = async (): Promise<string | null> => {
    const account = await fetchLedgerAccount(context.rpc, batchAddress, commitment);
    if (account === null || account.owner !== programId) return null;
    const [first] = await successfulSignatures(context.rpc, batchAddress, commitment, undefined);
    return first ?? null;
  };
  if (resumeRecordedRoot) {
    const recordedBy = await findRecordingTransaction();
    if (recordedBy !== null) return recordedBy;
  }
  try {
    const commit = await withRegisteredAgent(context, context.agent.address, () =>
      sendAndConfirmTransaction(context.sendSettings, {
        feePayer: operator,
        instructions,
        computeUnitsKey,
      }),
    );
    return commit.signature;
  } catch (error) {
    // When the root may have been sent before, an earlier send may have landed although its
    // answer was lost: this send then fails (DuplicateBatch, which the program answers before it
    // looks at the agent's status and policy, or a timeout). Where the root is there, do not fail
    // on it.
    if (!resumeRecordedRoot) throw error;
    const recordedBy = await findRecordingTransaction().catch(() => null);
    if (recordedBy === null) throw error;
    return recordedBy;
  }
}

/**
 * Records a batch of prepared items under one signed Merkle root, then publishes the leaves the
 * ledger lacks. The agent's Ed25519 signature is deterministic, so the same items always give the
 * same root, signature and receipts: with `resumeRecordedRoot` this is safe to run again.
 */
export async function recordBatch(
  clientContext: ClientContext,
  operator: TransactionSigner,
  prepared: readonly PreparedBatchItem[],
  { reportProgress, resumeRecordedRoot }: RecordBatchOptions,
): Promise<BatchAttestationResult> {
  // The root and the leaves are different transactions: they share one blockhash.
  const context = { ...clientContext, sendSettings: withSharedBlockhash(clientContext.sendSettings) };
  const { programId, rpcUrl } = context.settings;
  const agent = context.agent.address;
  const itemCount = prepared.length;
  const leaves: LeafData[] = prepared.map(({ actionType, privacyMode, storedHash }) => ({
    actionType,
    privacyMode,
    storedHash,
  }));
  const leafHashes = leaves.map(computeLeafHash);
  const merkleRoot = computeMerkleRoot(leafHashes);
  // The tightest mask: the items' own types, which must all be allowed by the agent's policy.
  const actionTypes = actionTypesMask(prepared.map((item) => item.actionType));
  const message = buildBatchMessage({ programId, agent, itemCount, actionTypes, merkleRoot });
  const agentSignature = await signWithAgent(context, message);
  const instructions = [
    buildEd25519VerifyInstruction({ publicKey: agent, signature: agentSignature, message }),
    await buildAttestBatchInstruction({ programId, operator, agent, itemCount, actionTypes, merkleRoot }),
  ];
  const { address: batchAddress, bump } = await deriveBatchAddress(programId, agent, merkleRoot);
  const commitSignature = await recordBatchRoot(
    context,
    operator,
    batchAddress,
    resumeRecordedRoot,
    instructions,
    // The program proves the address canonical with one hash per bump from 255 down to the
    // address's own, so the units follow from the item count and the bump.
    `attest_batch:${itemCount}:${bump}`,
  );

  const recorded = decodeBatchAccount(await fetchRecordedAccount(context, batchAddress));
  const explorerUrl = getTransactionExplorerUrl(commitSignature, rpcUrl);
  const merkleRootHex = bytesToHex(merkleRoot);
  const batchActionTypes = actionTypesFromMask(actionTypes).map(getActionTypeName);
  const proofs = buildInclusionProofs(leafHashes);
  const receipts: BatchItemReceipt[] = prepared.map((item, index) => ({
    index,
    itemCount,
    actionHash: bytesToHex(item.actionHash),
    actionType: getActionTypeName(item.actionType),
    privacyMode: item.privacyMode,
    storedHash: bytesToHex(item.storedHash),
    ...(item.salt === undefined ? {} : { salt: bytesToHex(item.salt) }),
    leafHash: bytesToHex(leafHashes[index]!),
    proof: proofs[index]!.map(bytesToHex),
    merkleRoot: merkleRootHex,
    batchActionTypes,
    batchAddress,
    programId,
    agent,
    operator: operator.address,
    agentSignature: signatureToBase58(agentSignature),
    txSignature: commitSignature,
    explorerUrl,
    slot: Number(recorded.slot),
    timestamp: Number(recorded.timestamp),
  }));
  let leavesPublished = recorded.leavesPublished;
  reportProgress?.({ stage: "root-recorded", txSignature: commitSignature, leavesPublished, itemCount });

  let leafTransactions: string[];
  try {
    leafTransactions = await publishBatchLeaves(context, operator, {
      merkleRoot,
      leaves,
      fromIndex: leavesPublished,
      onChunkPublished: (txSignature, published) => {
        leavesPublished = published;
        reportProgress?.({ stage: "leaves-published", txSignature, leavesPublished, itemCount });
      },
    });
  } catch (error) {
    throw new AbasError(ABAS_RUNTIME__BATCH_LEAVES_NOT_PUBLISHED, {
      batchAddress,
      commitSignature: commitSignature,
      leavesPublished,
      itemCount,
      receipts,
      cause: error,
    });
  }
  return {
    txSignature: commitSignature,
    explorerUrl,
    batchAddress,
    merkleRoot: merkleRootHex,
    itemCount,
    leafTransactions,
    receipts,
  };
}
