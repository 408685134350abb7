/**
 * The program's instructions inside a `getTransaction` response (JSON encoding), top-level and inner
 * (another program's CPI into ours), in the order they ran, with their accounts resolved to
 * addresses (lookup-table addresses included) and their data decoded from base58.
 */
import { AccountRole, type Address } from "@solana/kit";

import { decodeBase58 } from "../base58.js";
import { toAddress } from "../fast-addresses.js";
import {
  AbasAttestationInstruction,
  identifyAbasAttestationInstruction,
  parseAbasAttestationInstruction,
} from "../generated/index.js";

export type ProgramInstructionName =
  | "initialize"
  | "register_agent"
  | "update_agent"
  | "attest"
  | "attest_batch"
  | "publish_batch_leaves"
  | "unknown";

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
  /**
   * The accounts by their IDL name (`agentAccount`, `attestation`, `batch`, ...), read by the
   * generated parser; empty when the accounts or data do not parse as the instruction's.
   */
  namedAccounts: Readonly<Record<string, Address>>;
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
  ].map((key) => toAddress(key));
}

/** `PublishBatchLeaves` -> `publish_batch_leaves` */
const snakeCase = (name: string): string => name.replace(/(?<!^)([A-Z])/g, "_$1").toLowerCase();

/** The name of an instruction of the program, from its discriminator (the generated identifier). */
export function getProgramInstructionName(data: Uint8Array): ProgramInstructionName {
  try {
    return snakeCase(
      AbasAttestationInstruction[identifyAbasAttestationInstruction(data)],
    ) as ProgramInstructionName;
  } catch {
    return "unknown";
  }
}

/** The instruction's accounts by their IDL names, or none when it does not parse as its instruction. */
function nameAccounts(
  programId: Address,
  accounts: readonly Address[],
  data: Uint8Array,
): Record<string, Address> {
  try {
    const parsed = parseAbasAttestationInstruction({
      programAddress: programId,
      accounts: accounts.map((account) => ({ address: account, role: AccountRole.READONLY })),
      data,
    });
    return Object.fromEntries(Object.entries(parsed.accounts).map(([name, meta]) => [name, meta.address]));
  } catch {
    return {};
  }
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
  const inner = response.meta?.innerInstructions ?? [];
  const decoded: ProgramInstruction[] = [];
  const take = (instruction: CompiledInstruction, index: number, isInner: boolean) => {
    if (keyAt(instruction.programIdIndex) !== programId) return;
    const data = decodeBase58(instruction.data);
    if (data === undefined) {
      throw new MalformedTransactionError(
        `transaction ${response.transaction.signatures[0] ?? "?"} has instruction data that is not base58`,
      );
    }
    const accounts = instruction.accounts.map(keyAt);
    decoded.push({
      index,
      inner: isInner,
      name: getProgramInstructionName(data),
      accounts,
      namedAccounts: nameAccounts(programId, accounts, data),
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
