/**
 * Turns a `getTransaction` (JSON encoding) response into the facts the appliers need: whether it
 * failed, and each top-level instruction of our program with its accounts resolved to addresses
 * and its data decoded. Instructions of other programs (Ed25519 precompile, compute budget) are
 * dropped; CPIs into our program are not followed (the program is not designed to be called
 * through CPI: its attest instructions read the instruction before them from the sysvar).
 */
import {
  getProgramErrorFromTransactionError,
  InstructionDiscriminator,
  withPlainNumbers,
  type InstructionDiscriminator as InstructionDiscriminatorValue,
} from "@abas/program-client";
import { address, getBase58Encoder, type Address, type Signature } from "@solana/kit";

export type ProgramInstructionName =
  | "initialize"
  | "register_agent"
  | "update_agent"
  | "attest"
  | "attest_batch"
  | "publish_batch_leaves"
  | "unknown";

const INSTRUCTION_NAMES: Readonly<Record<InstructionDiscriminatorValue, ProgramInstructionName>> = {
  [InstructionDiscriminator.Initialize]: "initialize",
  [InstructionDiscriminator.RegisterAgent]: "register_agent",
  [InstructionDiscriminator.UpdateAgent]: "update_agent",
  [InstructionDiscriminator.Attest]: "attest",
  [InstructionDiscriminator.AttestBatch]: "attest_batch",
  [InstructionDiscriminator.PublishBatchLeaves]: "publish_batch_leaves",
};

export type ProgramInstruction = Readonly<{
  /** Position among the transaction's top-level instructions (what an InstructionError names). */
  index: number;
  name: ProgramInstructionName;
  accounts: readonly Address[];
  data: Uint8Array;
}>;

export type ProgramTransaction = Readonly<{
  signature: Signature;
  slot: bigint;
  /** The transaction error as the RPC's JSON has it; null when it succeeded. */
  error: unknown;
  instructions: readonly ProgramInstruction[];
}>;

/** The parts of a JSON-encoded `getTransaction` response that the decoder reads. */
export type TransactionJsonResponse = Readonly<{
  slot: bigint;
  transaction: Readonly<{
    signatures: readonly string[];
    message: Readonly<{
      accountKeys: readonly string[];
      instructions: readonly Readonly<{
        programIdIndex: number;
        accounts: readonly number[];
        data: string;
      }>[];
    }>;
  }>;
  meta: Readonly<{
    err: unknown;
    loadedAddresses?: Readonly<{ writable: readonly string[]; readonly: readonly string[] }>;
  }> | null;
}>;

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

function keyAt(keys: readonly Address[], index: number, signature: string): Address {
  const key = keys[index];
  if (key === undefined) {
    throw new MalformedTransactionError(
      `transaction ${signature} names account index ${index} of ${keys.length}`,
    );
  }
  return key;
}

export function decodeProgramTransaction(
  signature: Signature,
  response: TransactionJsonResponse,
  programId: Address,
): ProgramTransaction {
  const keys = resolveAccountKeys(response);
  const base58 = getBase58Encoder();
  const instructions: ProgramInstruction[] = [];
  response.transaction.message.instructions.forEach((instruction, index) => {
    if (keyAt(keys, instruction.programIdIndex, signature) !== programId) return;
    const data = Uint8Array.from(base58.encode(instruction.data));
    const discriminator = data[0] as InstructionDiscriminatorValue | undefined;
    instructions.push({
      index,
      name: (discriminator !== undefined && INSTRUCTION_NAMES[discriminator]) || "unknown",
      accounts: instruction.accounts.map((accountIndex) => keyAt(keys, accountIndex, signature)),
      data,
    });
  });
  return {
    signature,
    slot: response.slot,
    error: withPlainNumbers(response.meta?.err ?? null),
    instructions,
  };
}

/** Where the agent account sits among an instruction's accounts (register_agent has the agent key first). */
export function agentAccountOf(instruction: ProgramInstruction): Address | undefined {
  switch (instruction.name) {
    case "register_agent":
      return instruction.accounts[2];
    case "update_agent":
    case "attest":
    case "attest_batch":
    case "publish_batch_leaves":
      return instruction.accounts[1];
    default:
      return undefined;
  }
}

/** The attestation (attest) or batch (attest_batch, publish_batch_leaves) account of an instruction. */
export function recordAccountOf(instruction: ProgramInstruction): Address | undefined {
  switch (instruction.name) {
    case "attest":
    case "attest_batch":
    case "publish_batch_leaves":
      return instruction.accounts[2];
    default:
      return undefined;
  }
}

/** The accounts whose state a successful instruction changed and the appliers read. */
export function accountsToRead(instruction: ProgramInstruction): Address[] {
  const accounts = [agentAccountOf(instruction), recordAccountOf(instruction)];
  return accounts.filter((account): account is Address => account !== undefined);
}

/** Refusals for policy or status reasons: they count against the agent (`policy_violation_count`). */
const POLICY_REFUSALS = new Set(["ActionTypeNotAllowed", "AgentSuspended", "AgentRevoked"]);

export type PolicyRefusal = Readonly<{ errorName: string; agentAccount: Address }>;

/**
 * The agent account of a transaction that our program refused for a policy or status reason, or
 * undefined when the transaction succeeded or failed for any other reason.
 */
export function findPolicyRefusal(transaction: ProgramTransaction): PolicyRefusal | undefined {
  if (transaction.error === null) return undefined;
  const programError = getProgramErrorFromTransactionError(transaction.error);
  if (programError === undefined) return undefined;
  const context = programError.context as Readonly<{ programErrorName?: string; instructionIndex?: number }>;
  const errorName = context.programErrorName;
  if (errorName === undefined || !POLICY_REFUSALS.has(errorName)) return undefined;
  // Only our own instruction's failure carries our codes; another program's custom code can collide.
  const failed = transaction.instructions.find(
    (instruction) => instruction.index === context.instructionIndex,
  );
  const agentAccount = failed === undefined ? undefined : agentAccountOf(failed);
  return agentAccount === undefined ? undefined : { errorName, agentAccount };
}
