/**
 * Turns a `getTransaction` (JSON encoding) response into the facts the appliers need: whether it
 * failed, and each instruction of our program (top-level, or called through another program's CPI)
 * with its accounts resolved to addresses and its data decoded (`@abas/program-client`'s decoder).
 * Instructions of other programs (Ed25519 precompile, compute budget) are dropped.
 */
import {
  decodeProgramInstructions,
  getProgramErrorFromTransactionError,
  MalformedTransactionError,
  withPlainNumbers,
  type ProgramInstruction,
  type TransactionJsonResponse,
} from "@abas/program-client";
import type { Address, Signature } from "@solana/kit";

export {
  MalformedTransactionError,
  type ProgramInstruction,
  type ProgramInstructionName,
  type TransactionJsonResponse,
} from "@abas/program-client";

export type ProgramTransaction = Readonly<{
  signature: Signature;
  slot: bigint;
  /** The transaction error as the RPC's JSON has it; null when it succeeded. */
  error: unknown;
  instructions: readonly ProgramInstruction[];
}>;

export function decodeProgramTransaction(
  signature: Signature,
  response: TransactionJsonResponse,
  programId: Address,
): ProgramTransaction {
  // Without its status the transaction could have failed: applying it as a success would index
  // what the ledger may not hold. Refused, so the poll fails and is retried.
  if (response.meta === null) {
    throw new MalformedTransactionError(
      `the RPC node answered transaction ${signature} without its status (meta is null): whether it succeeded is unknown`,
    );
  }
  return {
    signature,
    slot: response.slot,
    error: withPlainNumbers(response.meta.err ?? null),
    instructions: decodeProgramInstructions(response, programId),
  };
}

/**
 * The agent account an instruction names (register_agent, update_agent, attest, attest_batch), by
 * its IDL name through the generated parser.
 */
export function agentAccountOf(instruction: ProgramInstruction): Address | undefined {
  return instruction.namedAccounts.agentAccount;
}

/** The attestation (attest) or batch (attest_batch, publish_batch_leaves) account of an instruction. */
export function recordAccountOf(instruction: ProgramInstruction): Address | undefined {
  return instruction.namedAccounts.attestation ?? instruction.namedAccounts.batch;
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
