/**
 * Receipts built without a ledger, the way the program defines them (docs/program.md), so the
 * offline checks of `verifyReceipt` can be tested on their own.
 */
import { randomBytes } from "node:crypto";

import {
  actionTypesFromMask,
  actionTypesMask,
  ActionType,
  buildAttestMessage,
  buildBatchMessage,
  buildInclusionProof,
  bytesToHex,
  computeCommitment,
  computeLeafHash,
  computeMerkleRoot,
  deriveAttestationAddress,
  deriveBatchAddress,
  getActionTypeName,
  signMessageWithKeyPair,
} from "@abas/program-client";
import { createKeyPairSignerFromBytes, getBase58Decoder, type KeyPairSigner } from "@solana/kit";

import { LOCAL_PROGRAM_ID } from "../../client-config.js";
import type { AttestationReceipt, BatchItemReceipt } from "../../receipts.js";
import { generateSecretKey } from "../../keypair.js";

const base58 = getBase58Decoder();
export const SOME_TX_SIGNATURE = base58.decode(new Uint8Array(64).fill(7));

export const newAgent = (): Promise<KeyPairSigner> => createKeyPairSignerFromBytes(generateSecretKey());

export async function buildOfflineReceipt(
  agent: KeyPairSigner,
  {
    privacyMode = false,
    actionType = ActionType.ToolCall,
  }: { privacyMode?: boolean; actionType?: ActionType } = {},
): Promise<AttestationReceipt> {
  const programId = LOCAL_PROGRAM_ID;
  const actionHash = new Uint8Array(randomBytes(32));
  const salt = privacyMode ? new Uint8Array(randomBytes(32)) : undefined;
  const storedHash = salt ? computeCommitment(salt, actionHash) : actionHash;
  const message = buildAttestMessage({
    programId,
    agent: agent.address,
    actionType,
    privacyMode,
    storedHash,
  });
  const signature = await signMessageWithKeyPair(agent.keyPair, message);
  return {
    txSignature: SOME_TX_SIGNATURE,
    explorerUrl: `https://explorer.solana.com/tx/${SOME_TX_SIGNATURE}`,
    attestationAddress: (await deriveAttestationAddress(programId, agent.address, storedHash)).address,
    programId,
    agent: agent.address,
    operator: (await newAgent()).address,
    actionType: getActionTypeName(actionType),
    privacyMode,
    actionHash: bytesToHex(actionHash),
    storedHash: bytesToHex(storedHash),
    ...(salt ? { salt: bytesToHex(salt) } : {}),
    agentSignature: base58.decode(signature),
    slot: 1234,
    timestamp: 1_767_225_600,
  };
}

export async function buildOfflineBatch(
  agent: KeyPairSigner,
  itemCount: number,
): Promise<BatchItemReceipt[]> {
  const programId = LOCAL_PROGRAM_ID;
  const items = Array.from({ length: itemCount }, (_, index) => {
    const actionHash = new Uint8Array(randomBytes(32));
    const privacyMode = index % 3 === 0;
    const salt = privacyMode ? new Uint8Array(randomBytes(32)) : undefined;
    const actionType = (index % 2 === 0 ? ActionType.Decision : ActionType.ModelInvocation) as ActionType;
    return {
      actionHash,
      privacyMode,
      salt,
      actionType,
      storedHash: salt ? computeCommitment(salt, actionHash) : actionHash,
    };
  });
  const leafHashes = items.map(computeLeafHash);
  const merkleRoot = computeMerkleRoot(leafHashes);
  const mask = actionTypesMask(items.map((item) => item.actionType));
  const message = buildBatchMessage({
    programId,
    agent: agent.address,
    itemCount,
    actionTypes: mask,
    merkleRoot,
  });
  const signature = base58.decode(await signMessageWithKeyPair(agent.keyPair, message));
  const batchAddress = (await deriveBatchAddress(programId, agent.address, merkleRoot)).address;
  const operator = (await newAgent()).address;
  return items.map((item, index) => ({
    index,
    itemCount,
    actionHash: bytesToHex(item.actionHash),
    actionType: getActionTypeName(item.actionType),
    privacyMode: item.privacyMode,
    storedHash: bytesToHex(item.storedHash),
    ...(item.salt ? { salt: bytesToHex(item.salt) } : {}),
    leafHash: bytesToHex(leafHashes[index]!),
    proof: buildInclusionProof(leafHashes, index).map(bytesToHex),
    merkleRoot: bytesToHex(merkleRoot),
    batchActionTypes: actionTypesFromMask(mask).map(getActionTypeName),
    batchAddress,
    programId,
    agent: agent.address,
    operator,
    agentSignature: signature,
    txSignature: SOME_TX_SIGNATURE,
    explorerUrl: `https://explorer.solana.com/tx/${SOME_TX_SIGNATURE}`,
    slot: 99,
    timestamp: 1_767_225_600,
  }));
}

/** A hex string with its first character changed. */
export const flipHex = (hex: string): string => (hex[0] === "0" ? "1" : "0") + hex.slice(1);
