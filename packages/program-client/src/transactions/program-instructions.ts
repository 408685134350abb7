/**
 * The program's instructions inside a `getTransaction` response (JSON encoding), top-level and inner
 * (another program's CPI into ours), in the order they ran, with their accounts resolved to
 * addresses (lookup-table addresses included) and their data decoded from base58.
 */
import { address, getBase58Encoder, type Address } from "@solana/kit";

import { InstructionDiscriminator } from "../constants.js";

export type ProgramInstructionName =
  | "initialize"
  | "register_agent"
  | "update_agent"
  | "attest"
  | "attest_batch"
  | "publish_batch_leaves"
  | "unknown";

const INSTRUCTION_NAMES: Readonly<Record<number, ProgramInstructionName>> = {
  [InstructionDiscriminator.Initialize]: "initialize",
  [InstructionDiscriminator.RegisterAgent]: "register_agent",
  [InstructionDiscriminator.UpdateAgent]: "update_agent",
  [InstructionDiscriminator.Attest]: "attest",
  [InstructionDiscriminator.AttestBatch]: "attest_batch",
  [InstructionDiscriminator.PublishBatchLeaves]: "publish_batch_leaves",
};

export type ProgramInstruction = Readonly<{
  /**
   * Position of the top-level instruction it ran in (what an InstructionError names): its own
   * position, or that of the instruction whose CPI called it.
   */
  index: number;
  /** Called through another program's CPI. */
  inner: boolean;
  name: ProgramInstructionName;
  accounts: readonly Address[];
  data: Uint8Array;
}>;

type CompiledInstruction = Readonly<{ programIdIndex: number; accounts: readonly number[]; data: string }>;

/** The parts of a JSON-encoded `getTransaction` response that the decoder reads. */
export type TransactionJsonResponse = Readonly<{
  slot: bigint;
  transaction: Readonly<{
    signatures: readonly string[];
    message: Readonly<{ accountKeys: readonly string[]; instructions: readonly CompiledInstruction[] }>;
  }>;
  meta: Readonly<{
    err: unknown;
    loadedAddresses?: Readonly<{ writable: readonly string[]; readonly: readonly string[] }>;
    innerInstructions?:
      readonly Readonly<{ index: number; instructions: readonly CompiledInstruction[] }>[] | null;
  }> | null;
}>;

/** A transaction that names an account index it does not have. */
export class MalformedTransactionError extends Error {
  override readonly name = "MalformedTransactionError";
}

/** Static keys, then the addresses loaded from lookup tables (writable, then read-only), as the runtime orders them. */
function resolveAccountKeys(response: TransactionJsonResponse): Address[] {
  const loaded = response.meta?.loadedAddresses;
  return [
    ...response.transaction.message.accountKeys,
    ...(loaded?.writable ?? []),
    ...(loaded?.readonly ?? []),
  ].map((key) => address(key));
}

/** The name of an instruction of the program, from the first byte of its data. */
export function getProgramInstructionName(data: Uint8Array): ProgramInstructionName {
  const discriminator = data[0];
  return (discriminator !== undefined && INSTRUCTION_NAMES[discriminator]) || "unknown";
}

/** Every instruction of `programId` in the transaction, in execution order. */
export function decodeProgramInstructions(
  response: TransactionJsonResponse,
  programId: Address,
): ProgramInstruction[] {
  const keys = resolveAccountKeys(response);
  const keyAt = (index: number): Address => {
    const key = keys[index];
    if (key === undefined) {
      throw new MalformedTransactionError(
        `transaction ${response.transaction.signatures[0] ?? "?"} names account index ${index} of ${keys.length}`,
      );
    }
    return key;
  };
  const base58 = getBase58Encoder();
  const inner = response.meta?.innerInstructions ?? [];
  const decoded: ProgramInstruction[] = [];
  const take = (instruction: CompiledInstruction, index: number, isInner: boolean) => {
    if (keyAt(instruction.programIdIndex) !== programId) return;
    const data = Uint8Array.from(base58.encode(instruction.data));
    decoded.push({
      index,
      inner: isInner,
      name: getProgramInstructionName(data),
      accounts: instruction.accounts.map(keyAt),
      data,
    });
  };
  response.transaction.message.instructions.forEach((instruction, index) => {
    take(instruction, index, false);
    for (const group of inner) {
      if (group.index === index) for (const cpi of group.instructions) take(cpi, index, true);
    }
  });
  return decoded;
}
