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
  buildInclusionProof,
  bytesToHex,
  computeLeafHash,
  computeMerkleRoot,
  decodeBatchAccount,
  deriveBatchAddress,
  getActionTypeName,
  type LeafData,
} from "@abas/program-client";

import { signWithAgent } from "./agent-signature.js";
import { withRegisteredAgent } from "./agent-registration.js";
import { prepareStoredHash, type AttestInput } from "./attest.js";
import type { ClientContext } from "./client-context.js";
import { getTransactionExplorerUrl } from "./explorer-url.js";
import { assertBatchItems, assertObject, parseAction } from "./input-validation.js";
import { prepareKeypair, type KeypairSource } from "./keypair.js";
import { publishBatchLeaves } from "./publish-batch-leaves.js";
import type { BatchAttestationResult, BatchItemReceipt } from "./receipts.js";
import { fetchRecordedAccount } from "./recorded-account.js";
import { signatureToBase58 } from "./records.js";
import { sendAndConfirmTransaction } from "./send-transaction.js";

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

  const { programId, rpcUrl } = context.settings;
  const agent = context.agent.address;
  const itemCount = items.length;
  const prepared = items.map((item) => ({
    ...item,
    ...prepareStoredHash(item.actionHash, item.privacyMode),
  }));
  const leaves: LeafData[] = prepared.map(({ actionType, privacyMode, storedHash }) => ({
    actionType,
    privacyMode,
    storedHash,
  }));
  const leafHashes = leaves.map(computeLeafHash);
  const merkleRoot = computeMerkleRoot(leafHashes);
  // The tightest mask: the items' own types, which must all be allowed by the agent's policy.
  const actionTypes = actionTypesMask(items.map((item) => item.actionType));
  const message = buildBatchMessage({ programId, agent, itemCount, actionTypes, merkleRoot });
  const [operator, agentSignature] = await Promise.all([
    operatorKeypair.getSigner(),
    signWithAgent(context, message),
  ]);
  const instructions = [
    buildEd25519VerifyInstruction({ publicKey: agent, signature: agentSignature, message }),
    await buildAttestBatchInstruction({ programId, operator, agent, itemCount, actionTypes, merkleRoot }),
  ];
  const commit = await withRegisteredAgent(context, agent, () =>
    sendAndConfirmTransaction(context.sendSettings, { feePayer: operator, instructions }),
  );

  const { address: batchAddress } = await deriveBatchAddress(programId, agent, merkleRoot);
  const recorded = decodeBatchAccount(await fetchRecordedAccount(context, batchAddress));
  const explorerUrl = getTransactionExplorerUrl(commit.signature, rpcUrl);
  const merkleRootHex = bytesToHex(merkleRoot);
  const batchActionTypes = actionTypesFromMask(actionTypes).map(getActionTypeName);
  const receipts: BatchItemReceipt[] = prepared.map((item, index) => ({
    index,
    itemCount,
    actionHash: bytesToHex(item.actionHash),
    actionType: getActionTypeName(item.actionType),
    privacyMode: item.privacyMode,
    storedHash: bytesToHex(item.storedHash),
    ...(item.salt === undefined ? {} : { salt: bytesToHex(item.salt) }),
    leafHash: bytesToHex(leafHashes[index]!),
    proof: buildInclusionProof(leafHashes, index).map(bytesToHex),
    merkleRoot: merkleRootHex,
    batchActionTypes,
    batchAddress,
    programId,
    agent,
    operator: operator.address,
    agentSignature: signatureToBase58(agentSignature),
    txSignature: commit.signature,
    explorerUrl,
    slot: Number(recorded.slot),
    timestamp: Number(recorded.timestamp),
  }));
  reportProgress?.({ stage: "root-recorded", txSignature: commit.signature, leavesPublished: 0, itemCount });

  let leavesPublished = 0;
  let leafTransactions: string[];
  try {
    leafTransactions = await publishBatchLeaves(context, operator, {
      merkleRoot,
      leaves,
      fromIndex: 0,
      onChunkPublished: (txSignature, published) => {
        leavesPublished = published;
        reportProgress?.({ stage: "leaves-published", txSignature, leavesPublished, itemCount });
      },
    });
  } catch (error) {
    throw new AbasError(ABAS_RUNTIME__BATCH_LEAVES_NOT_PUBLISHED, {
      batchAddress,
      commitSignature: commit.signature,
      leavesPublished,
      itemCount,
      receipts,
      cause: error,
    });
  }
  return {
    txSignature: commit.signature,
    explorerUrl,
    batchAddress,
    merkleRoot: merkleRootHex,
    itemCount,
    leafTransactions,
    receipts,
  };
}
