import {
  buildAttestInstruction,
  buildAttestMessage,
  buildEd25519VerifyInstruction,
  bytesToHex,
  computeCommitment,
  decodeAttestationAccount,
  deriveAttestationAddress,
  getActionTypeName,
  SALT_SIZE,
} from "@abas/program-client";
import type { Address } from "@solana/kit";

import { withRegisteredAgent } from "./agent-registration.js";
import type { ClientContext } from "./client-context.js";
import { getTransactionExplorerUrl } from "./explorer-url.js";
import { parseAction, type ActionTypeInput } from "./input-validation.js";
import { prepareKeypair, type KeypairSource } from "./keypair.js";
import { fetchRecordedAccount } from "./recorded-account.js";
import type { AttestationReceipt } from "./receipts.js";
import { signatureToBase58 } from "./records.js";
import { signWithAgent } from "./agent-signature.js";
import { sendAndConfirmTransaction } from "./send-transaction.js";

export type AttestInput = Readonly<{
  /** The agent's operator: pays, and must be the key that registered the agent. */
  operatorKeypair: KeypairSource;
  /** `hashAction(payload)`: 64 hex characters. */
  actionHash: string;
  actionType: ActionTypeInput;
  /** Store a salted commitment instead of the hash; default false. */
  privacyMode?: boolean;
}>;

/** A fresh 32-byte salt for a privacy-mode commitment. */
export function generateSalt(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(SALT_SIZE));
}

/** The value stored on chain for an action: the hash itself, or the commitment to it under a new salt. */
export function prepareStoredHash(
  actionHash: Uint8Array,
  privacyMode: boolean,
): { storedHash: Uint8Array; salt?: Uint8Array } {
  if (!privacyMode) return { storedHash: actionHash };
  const salt = generateSalt();
  return { storedHash: computeCommitment(salt, actionHash), salt };
}

/**
 * Records one action: the agent signs the attest message, and one transaction carries the Ed25519
 * precompile instruction that verifies that signature right before the program's `attest`.
 */
export async function attest(context: ClientContext, input: AttestInput): Promise<AttestationReceipt> {
  const { actionHash, actionType, privacyMode } = parseAction(input);
  const operatorKeypair = prepareKeypair(input.operatorKeypair, "operatorKeypair");

  const { programId, rpcUrl } = context.settings;
  const agent: Address = context.agent.address;
  const { storedHash, salt } = prepareStoredHash(actionHash, privacyMode);
  const message = buildAttestMessage({ programId, agent, actionType, privacyMode, storedHash });
  const [operator, agentSignature] = await Promise.all([
    operatorKeypair.getSigner(),
    signWithAgent(context, message),
  ]);
  const instructions = [
    buildEd25519VerifyInstruction({ publicKey: agent, signature: agentSignature, message }),
    await buildAttestInstruction({ programId, operator, agent, actionType, privacyMode, storedHash }),
  ];
  const sent = await withRegisteredAgent(context, agent, () =>
    sendAndConfirmTransaction(context.sendSettings, { feePayer: operator, instructions }),
  );

  const { address: attestationAddress } = await deriveAttestationAddress(programId, agent, storedHash);
  const recorded = decodeAttestationAccount(await fetchRecordedAccount(context, attestationAddress));
  return {
    txSignature: sent.signature,
    explorerUrl: getTransactionExplorerUrl(sent.signature, rpcUrl),
    attestationAddress,
    programId,
    agent,
    operator: operator.address,
    actionType: getActionTypeName(actionType),
    privacyMode,
    actionHash: bytesToHex(actionHash),
    storedHash: bytesToHex(storedHash),
    ...(salt === undefined ? {} : { salt: bytesToHex(salt) }),
    agentSignature: signatureToBase58(agentSignature),
    slot: Number(recorded.slot),
    timestamp: Number(recorded.timestamp),
  };
}
