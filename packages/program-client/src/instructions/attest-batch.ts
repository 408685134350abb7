import type { Address, ReadonlyUint8Array, TransactionSigner } from "@solana/kit";

import { deriveAgentAddress, deriveBatchAddress, deriveIssuerAddresses } from "../addresses.js";
import { HASH_SIZE } from "../constants.js";
import { getAttestBatchInstruction, getAttestBatchInstructionDataEncoder } from "../generated/index.js";
import { assertActionTypeMask, assertBatchItemCount, assertByteLength, assertU8 } from "../validation.js";
import { asAbasInstruction, asProgramDerivedAddress, type AbasInstruction } from "./account-metas.js";

export type AttestBatchInstructionDataInput = Readonly<{
  itemCount: number;
  actionTypes: number;
  batchBump: number;
  merkleRoot: ReadonlyUint8Array;
}>;

/** `[4, item_count, action_types, batch_bump, merkle_root(32)]`; values are only checked to fit. */
export function encodeAttestBatchInstructionData({
  itemCount,
  actionTypes,
  batchBump,
  merkleRoot,
}: AttestBatchInstructionDataInput): Uint8Array {
  assertU8(itemCount, "itemCount");
  assertU8(actionTypes, "actionTypes");
  assertU8(batchBump, "batchBump");
  assertByteLength(merkleRoot, HASH_SIZE, "merkleRoot");
  return Uint8Array.from(
    getAttestBatchInstructionDataEncoder().encode({ itemCount, actionTypes, batchBump, merkleRoot }),
  );
}

export type AttestBatchInstructionInput = Readonly<{
  programId: Address;
  /** The agent's operator; pays for the batch account. */
  operator: TransactionSigner;
  agent: Address;
  itemCount: number;
  /** Bit mask of the action types the items may use (see `actionTypesMask`). */
  actionTypes: number;
  merkleRoot: ReadonlyUint8Array;
}>;

/**
 * Records the Merkle commitment to a batch of actions. The transaction must carry, right before
 * this instruction, the Ed25519 instruction verifying the agent's signature of the batch message
 * (`buildBatchMessage`, `buildEd25519VerifyInstruction`).
 */
export async function buildAttestBatchInstruction({
  programId,
  operator,
  agent,
  itemCount,
  actionTypes,
  merkleRoot,
}: AttestBatchInstructionInput): Promise<AbasInstruction> {
  assertBatchItemCount(itemCount);
  assertActionTypeMask(actionTypes);
  assertByteLength(merkleRoot, HASH_SIZE, "merkleRoot");
  const [issuer, agentAccount, batch] = await Promise.all([
    deriveIssuerAddresses(programId),
    deriveAgentAddress(programId, agent),
    deriveBatchAddress(programId, agent, merkleRoot),
  ]);
  return asAbasInstruction(
    getAttestBatchInstruction(
      {
        operator,
        agent,
        agentAccount: agentAccount.address,
        batch: asProgramDerivedAddress(batch),
        credential: issuer.credential.address,
        batchSchema: issuer.batchSchema.address,
        itemCount,
        actionTypes,
        merkleRoot,
      },
      { programAddress: programId },
    ),
  );
}
