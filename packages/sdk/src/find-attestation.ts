import { ABAS_SDK__INVALID_ARGUMENT, AbasError } from "@abas/errors";
import {
  computeCommitment,
  decodeAttestationAccount,
  deriveAttestationAddress,
  deriveBatchAddress,
} from "@abas/program-client";
import type { Address } from "@solana/kit";

import { fetchBatchLeaves } from "./batch-leaves.js";
import type { ClientContext } from "./client-context.js";
import { assertObject, parseAddress, parseHash, parseSalt } from "./input-validation.js";
import { fetchLedgerAccount } from "./ledger-accounts.js";
import { toAttestationRecord, toBatchRecord, type AttestationRecord, type BatchRecord } from "./records.js";

export type FindAttestationInput = Readonly<{
  /** The action hash; with `salt`, the privacy-mode commitment to it is looked up. */
  actionHash?: string;
  /** Or the stored hash itself (the action hash, or a commitment). */
  storedHash?: string;
  /** The receipt's salt, for an action attested in privacy mode. */
  salt?: string;
  /** Whose attestation; default the client's agent. */
  agent?: string;
}>;

function storedHashToFind(input: FindAttestationInput): Uint8Array {
  const { actionHash, storedHash, salt } = input;
  if ((actionHash === undefined) === (storedHash === undefined)) {
    throw new AbasError(ABAS_SDK__INVALID_ARGUMENT, {
      argument: "actionHash | storedHash",
      reason: "give exactly one of actionHash and storedHash",
    });
  }
  if (storedHash !== undefined) {
    if (salt !== undefined) {
      throw new AbasError(ABAS_SDK__INVALID_ARGUMENT, {
        argument: "salt",
        reason: "a salt goes with actionHash; a stored hash is already the commitment",
      });
    }
    return parseHash(storedHash, "storedHash");
  }
  const actionHashBytes = parseHash(actionHash, "actionHash");
  return salt === undefined ? actionHashBytes : computeCommitment(parseSalt(salt), actionHashBytes);
}

/**
 * The single attestation of an action, read from its PDA, or null when there is none. Without a
 * salt, only a normal-mode attestation can be found: a privacy-mode one is stored under its
 * commitment, which nobody can compute without the receipt's salt. An `actionHash` finds only an
 * attestation of its own mode: a privacy-mode commitment is not an action hash, and a normal-mode
 * hash that happens to equal a commitment is not a salted one. (A `storedHash` finds either.)
 * Batch items are found through their batch (`findBatch`).
 */
export async function findAttestation(
  context: ClientContext,
  input: FindAttestationInput,
): Promise<AttestationRecord | null> {
  assertObject(input, "input");
  const storedHash = storedHashToFind(input);
  const agent = input.agent === undefined ? context.agent.address : parseAddress(input.agent, "agent");
  const { programId, commitment } = context.settings;
  const { address } = await deriveAttestationAddress(programId, agent, storedHash);
  const account = await fetchLedgerAccount(context.rpc, address, commitment);
  if (account === null || account.owner !== programId) return null;
  const record = toAttestationRecord(address, programId, decodeAttestationAccount(account.data));
  if (input.actionHash !== undefined && record.privacyMode !== (input.salt !== undefined)) return null;
  return record;
}

export type FindBatchInput = Readonly<{ merkleRoot: string; agent?: string }>;

/**
 * The batch attestation with this Merkle root, with its published leaves read from its
 * `publish_batch_leaves` transactions (`fetchBatchLeaves`), or null.
 */
export async function findBatch(context: ClientContext, input: FindBatchInput): Promise<BatchRecord | null> {
  assertObject(input, "input");
  const merkleRoot = parseHash(input.merkleRoot, "merkleRoot");
  const agent: Address =
    input.agent === undefined ? context.agent.address : parseAddress(input.agent, "agent");
  const { programId, commitment } = context.settings;
  const { address } = await deriveBatchAddress(programId, agent, merkleRoot);
  const found = await fetchBatchLeaves(context.rpc, { programId, batchAddress: address, commitment });
  return found === null ? null : toBatchRecord(address, programId, found.account, found.leaves);
}
