/**
 * `jsonParsed` decoding of the ABAS program's instructions (program "abas-attestation"), which a
 * validator has no parser for: the accounts under the names the program's IDL gives them (read by
 * the generated client's parser), the data in the terms the rest of ABAS uses (action types and
 * agent statuses by name, masks as the action types they allow, hashes in hex). Data the program
 * would refuse (a length other than the instruction's, a value out of range) is left partially
 * decoded, as a validator leaves data its parser refuses.
 */
import {
  AbasAttestationInstruction,
  MAX_BATCH_ITEMS,
  actionTypesFromMask,
  bytesToHex,
  getActionTypeName,
  getAgentStatusName,
  getAttestBatchInstructionDataDecoder,
  getAttestInstructionDataDecoder,
  getInitializeInstructionDataDecoder,
  getPublishBatchLeavesInstructionDataDecoder,
  getRegisterAgentInstructionDataDecoder,
  getUpdateAgentInstructionDataDecoder,
  isActionType,
  isAgentStatus,
  parseAbasAttestationInstruction,
  type ParsedAbasAttestationInstruction,
} from "@abas/program-client";
import { AccountRole, isSolanaError, type Address, type ReadonlyUint8Array } from "@solana/kit";

import { NotDecodable, decodeOrUndefined, type DecodedInstruction } from "./instruction-data.js";

/** Each instruction's type as jsonParsed names it, and its data's decoder (to check the data's length). */
const INSTRUCTIONS: Record<
  AbasAttestationInstruction,
  { type: string; dataDecoder: { read(bytes: ReadonlyUint8Array, offset: number): [unknown, number] } }
> = {
  [AbasAttestationInstruction.Initialize]: {
    type: "initialize",
    dataDecoder: getInitializeInstructionDataDecoder(),
  },
  [AbasAttestationInstruction.RegisterAgent]: {
    type: "registerAgent",
    dataDecoder: getRegisterAgentInstructionDataDecoder(),
  },
  [AbasAttestationInstruction.UpdateAgent]: {
    type: "updateAgent",
    dataDecoder: getUpdateAgentInstructionDataDecoder(),
  },
  [AbasAttestationInstruction.Attest]: { type: "attest", dataDecoder: getAttestInstructionDataDecoder() },
  [AbasAttestationInstruction.AttestBatch]: {
    type: "attestBatch",
    dataDecoder: getAttestBatchInstructionDataDecoder(),
  },
  [AbasAttestationInstruction.PublishBatchLeaves]: {
    type: "publishBatchLeaves",
    dataDecoder: getPublishBatchLeavesInstructionDataDecoder(),
  },
};

function actionType(value: number): string {
  if (!isActionType(value)) throw new NotDecodable();
  return getActionTypeName(value);
}

function privacyMode(value: number): boolean {
  if (value > 1) throw new NotDecodable();
  return value === 1;
}

/** The action types a mask allows, by name; the program refuses a mask of none or of unknown types. */
function actionTypes(mask: number): string[] {
  try {
    return actionTypesFromMask(mask).map(getActionTypeName);
  } catch {
    throw new NotDecodable();
  }
}

/** The data's fields, minus the discriminator, in ABAS's terms. */
function dataFields(parsed: ParsedAbasAttestationInstruction<string>): Record<string, unknown> {
  switch (parsed.instructionType) {
    case AbasAttestationInstruction.Initialize: {
      const { credentialBump, attestationSchemaBump, batchSchemaBump, programDataBump } = parsed.data;
      return { credentialBump, attestationSchemaBump, batchSchemaBump, programDataBump };
    }
    case AbasAttestationInstruction.RegisterAgent:
      return {
        agentAccountBump: parsed.data.agentAccountBump,
        allowedActionTypes: actionTypes(parsed.data.allowedActionTypes),
      };
    case AbasAttestationInstruction.UpdateAgent:
      if (!isAgentStatus(parsed.data.status)) throw new NotDecodable();
      return {
        status: getAgentStatusName(parsed.data.status),
        allowedActionTypes: actionTypes(parsed.data.allowedActionTypes),
      };
    case AbasAttestationInstruction.Attest:
      return {
        actionType: actionType(parsed.data.actionType),
        privacyMode: privacyMode(parsed.data.privacyMode),
        attestationBump: parsed.data.attestationBump,
        storedHash: bytesToHex(parsed.data.storedHash),
      };
    case AbasAttestationInstruction.AttestBatch:
      if (parsed.data.itemCount < 1 || parsed.data.itemCount > MAX_BATCH_ITEMS) throw new NotDecodable();
      return {
        itemCount: parsed.data.itemCount,
        actionTypes: actionTypes(parsed.data.actionTypes),
        batchBump: parsed.data.batchBump,
        merkleRoot: bytesToHex(parsed.data.merkleRoot),
      };
    case AbasAttestationInstruction.PublishBatchLeaves:
      if (parsed.data.leaves.length === 0) throw new NotDecodable();
      return {
        startIndex: parsed.data.startIndex,
        leaves: parsed.data.leaves.map((leaf) => ({
          actionType: actionType(leaf.actionType),
          privacyMode: privacyMode(leaf.privacyMode),
          storedHash: bytesToHex(leaf.storedHash),
        })),
      };
  }
}

/** The generated parser's reading, or NotDecodable for an unknown discriminator, too few accounts or short data. */
function parseWithClient(
  programId: Address,
  accounts: readonly Address[],
  data: Uint8Array,
): ParsedAbasAttestationInstruction<string> {
  try {
    const parsed = parseAbasAttestationInstruction({
      programAddress: programId,
      accounts: accounts.map((address) => ({ address, role: AccountRole.READONLY })),
      data,
    });
    // The program takes only data of exactly its instruction's length; the parser reads a prefix.
    if (INSTRUCTIONS[parsed.instructionType].dataDecoder.read(data, 0)[1] !== data.length)
      throw new NotDecodable();
    return parsed;
  } catch (error) {
    if (isSolanaError(error) || error instanceof RangeError) throw new NotDecodable();
    throw error;
  }
}

/** The ABAS program at `programId`: its instructions' type and info, or undefined when not decodable. */
export function abasInstructionDecoder(programId: Address) {
  return (accounts: readonly Address[], data: Uint8Array): DecodedInstruction | undefined =>
    decodeOrUndefined(() => {
      const parsed = parseWithClient(programId, accounts, data);
      const named = Object.entries(parsed.accounts as Record<string, { address: Address }>).map(
        ([name, meta]) => [name, meta.address] as const,
      );
      return {
        type: INSTRUCTIONS[parsed.instructionType].type,
        info: { ...Object.fromEntries(named), ...dataFields(parsed) },
      };
    });
}
