/**
 * How the client sends a transaction, over HTTP only:
 *
 * 1. fetch a blockhash, or take the one the operation's earlier transactions used;
 * 2. simulate with the maximum compute-unit limit: a program or runtime error surfaces here as a
 *    named AbasError before any fee is spent, and the consumed units size the real limit. A
 *    transaction of a shape already measured (`computeUnitsKey`) skips this step: it is sized from
 *    the earlier one, and simulated only should the node refuse it for its budget, or as an
 *    identical transaction already processed (the simulation then names its own failure);
 * 3. sign and send with that limit (plus the margin) and the optional priority fee;
 * 4. poll `getSignatureStatuses` until the commitment is reached (no WebSocket subscription).
 *
 * A blockhash that the node no longer knows, or one that expires before the transaction lands,
 * starts over from step 1 with a new one, at most `maxSendAttempts` times.
 */
import {
  ABAS_RUNTIME__BLOCK_HEIGHT_EXCEEDED,
  ABAS_RUNTIME__BLOCKHASH_NOT_FOUND,
  ABAS_RUNTIME__TRANSACTION_CONFIRMATION_TIMEOUT,
  AbasError,
  isAbasError,
} from "@abas/errors";
import {
  compileTransaction,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  isSolanaError,
  signTransactionMessageWithSigners,
  SOLANA_ERROR__INSTRUCTION_ERROR__COMPUTATIONAL_BUDGET_EXCEEDED,
  SOLANA_ERROR__INSTRUCTION_ERROR__PROGRAM_FAILED_TO_COMPLETE,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
  type Address,
  type Commitment,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
} from "@solana/kit";

import { computeUnitLimitFromSimulation, MAX_COMPUTE_UNIT_LIMIT } from "./compute-budget.js";
import { rpcRequestFailed, sendRpcRequest } from "./rpc-request.js";
import {
  getAbasErrorFromPreflightError,
  getAbasErrorFromRpcTransactionError,
  type TransactionContext,
} from "./transaction-errors.js";
import {
  buildTransactionMessage,
  type BlockhashLifetime,
  type TransactionMessageToSend,
  type TransactionToSend,
} from "./transaction-message.js";

export type { TransactionToSend };

export type SendSettings = Readonly<{
  rpc: Rpc<SolanaRpcApi>;
  programId: Address;
  commitment: Commitment;
  priorityFeeMicroLamports?: bigint | undefined;
  computeUnitMargin: number;
  confirmationTimeoutMs: number;
  maxSendAttempts: number;
  /** Time between two status polls; default 250 ms. */
  pollIntervalMs?: number;
  /** The blockhash the transactions of one operation share: see `withSharedBlockhash`. */
  sharedBlockhash?: { lifetime: BlockhashLifetime | undefined };
  /** The units each transaction shape consumed when simulated, by `TransactionToSend.computeUnitsKey`. */
  knownComputeUnits?: Map<string, number>;
}>;

/**
 * The settings for the transactions of one operation (a batch's root and its leaves): the first
 * fetches a blockhash and the others use it too, while the node knows it. Only for transactions
 * that differ from one another: two identical transactions under one blockhash are one to the
 * ledger, so separate operations never share one.
 */
export function withSharedBlockhash(settings: SendSettings): SendSettings {
  return settings.sharedBlockhash === undefined
    ? { ...settings, sharedBlockhash: { lifetime: undefined } }
    : settings;
}

export type SentTransaction = Readonly<{
  signature: Signature;
  /** The slot the transaction landed in. */
  slot: bigint;
  /**
   * The units the simulation consumed (of this transaction, or of the earlier one of its shape it
   * was sized from), and the limit the transaction was sent with.
   */
  simulatedComputeUnits: number;
  computeUnitLimit: number;
  /** The sends: 1 unless a refused or expired blockhash made the client send again. */
  attempts: number;
}>;

const DEFAULT_POLL_INTERVAL_MS = 250;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function transactionContext(settings: SendSettings, message: TransactionMessageToSend): TransactionContext {
  return {
    programId: settings.programId,
    instructionProgramAddresses: message.instructions.map((instruction) => instruction.programAddress),
  };
}

/** The units the transaction consumes; throws the named error when it would fail. */
async function simulate(settings: SendSettings, message: TransactionMessageToSend): Promise<number> {
  // Unsigned: signatures are not verified in simulation, and the agent's Ed25519 signature that
  // matters is inside the precompile instruction's data, which the simulation does check.
  const wireTransaction = getBase64EncodedWireTransaction(compileTransaction(message));
  const { value } = await sendRpcRequest(
    "simulateTransaction",
    settings.rpc.simulateTransaction(wireTransaction, {
      encoding: "base64",
      sigVerify: false,
      replaceRecentBlockhash: false,
      commitment: settings.commitment,
    }),
  );
  if (value.err !== null) {
    throw getAbasErrorFromRpcTransactionError(
      value.err,
      value.logs,
      "simulation",
      transactionContext(settings, message),
    );
  }
  return Number(value.unitsConsumed ?? BigInt(MAX_COMPUTE_UNIT_LIMIT));
}

const COMMITMENT_RANK: Readonly<Record<Commitment, number>> = { processed: 0, confirmed: 1, finalized: 2 };

function hasReached(status: Commitment | null, commitment: Commitment): boolean {
  return status !== null && COMMITMENT_RANK[status] >= COMMITMENT_RANK[commitment];
}

/** The program logs of a landed transaction, to explain its failure; empty when they cannot be had. */
async function fetchLogs(settings: SendSettings, signature: Signature): Promise<readonly string[]> {
  try {
    const transaction = await settings.rpc
      .getTransaction(signature, {
        encoding: "json",
        maxSupportedTransactionVersion: 0,
        commitment: "confirmed",
      })
      .send();
    return transaction?.meta?.logMessages ?? [];
  } catch {
    return [];
  }
}

type ConfirmationOutcome = Readonly<{ landed: true; slot: bigint }> | Readonly<{ landed: false }>;

async function waitForConfirmation(
  settings: SendSettings,
  signature: Signature,
  lifetime: BlockhashLifetime,
  context: TransactionContext,
): Promise<ConfirmationOutcome> {
  const deadline = Date.now() + settings.confirmationTimeoutMs;
  for (;;) {
    const {
      value: [status],
    } = await sendRpcRequest("getSignatureStatuses", settings.rpc.getSignatureStatuses([signature]));
    if (status) {
      if (status.err !== null) {
        const logs = await fetchLogs(settings, signature);
        throw getAbasErrorFromRpcTransactionError(status.err, logs, "confirmation", context);
      }
      if (hasReached(status.confirmationStatus, settings.commitment))
        return { landed: true, slot: status.slot };
    } else {
      const blockHeight = await sendRpcRequest(
        "getBlockHeight",
        settings.rpc.getBlockHeight({ commitment: settings.commitment }),
      );
      // Past its last valid block height an unseen transaction can never land: safe to send anew.
      if (blockHeight > lifetime.lastValidBlockHeight) return { landed: false };
    }
    if (Date.now() >= deadline) {
      throw new AbasError(ABAS_RUNTIME__TRANSACTION_CONFIRMATION_TIMEOUT, {
        signature,
        timeoutMs: settings.confirmationTimeoutMs,
      });
    }
    await sleep(settings.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS);
  }
}

async function sendSigned(
  settings: SendSettings,
  message: TransactionMessageToSend,
  context: TransactionContext,
): Promise<Signature> {
  const transaction = await signTransactionMessageWithSigners(message);
  const signature = getSignatureFromTransaction(transaction);
  try {
    await settings.rpc
      .sendTransaction(getBase64EncodedWireTransaction(transaction), {
        encoding: "base64",
        preflightCommitment: settings.commitment,
      })
      .send();
  } catch (error) {
    throw getAbasErrorFromPreflightError(error, context) ?? rpcRequestFailed("sendTransaction", error);
  }
  return signature;
}

const isBlockhashNotFound = (error: unknown): boolean =>
  isAbasError(error, ABAS_RUNTIME__BLOCKHASH_NOT_FOUND);

/** A new blockhash; the operation's transactions share it from then on. */
async function freshBlockhash(settings: SendSettings): Promise<BlockhashLifetime> {
  const { value } = await sendRpcRequest(
    "getLatestBlockhash",
    settings.rpc.getLatestBlockhash({ commitment: settings.commitment }),
  );
  if (settings.sharedBlockhash !== undefined) settings.sharedBlockhash.lifetime = value;
  return value;
}

/**
 * A refusal of a transaction sized from its shape that a simulation explains: its compute budget
 * ran out (it consumes more than the shape's measure), or an identical transaction (the same
 * blockhash and limit) was already processed, and the simulation names this one's own failure.
 */
function simulationExplains(error: unknown): boolean {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (
      isSolanaError(cause, SOLANA_ERROR__INSTRUCTION_ERROR__COMPUTATIONAL_BUDGET_EXCEEDED) ||
      isSolanaError(cause, SOLANA_ERROR__INSTRUCTION_ERROR__PROGRAM_FAILED_TO_COMPLETE) ||
      isSolanaError(cause, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED)
    )
      return true;
  }
  return false;
}

type SentUnconfirmed = Readonly<{
  signature: Signature;
  simulatedComputeUnits: number;
  computeUnitLimit: number;
  context: TransactionContext;
}>;

async function sendWithUnits(
  settings: SendSettings,
  transactionToSend: TransactionToSend,
  lifetime: BlockhashLifetime,
  simulatedComputeUnits: number,
): Promise<SentUnconfirmed> {
  const computeUnitLimit = computeUnitLimitFromSimulation(simulatedComputeUnits, settings.computeUnitMargin);
  const message = buildTransactionMessage(
    transactionToSend,
    lifetime,
    computeUnitLimit,
    settings.priorityFeeMicroLamports,
  );
  const context = transactionContext(settings, message);
  const signature = await sendSigned(settings, message, context);
  return { signature, simulatedComputeUnits, computeUnitLimit, context };
}

/** Steps 2 and 3: sizes the compute-unit limit, from the transaction's shape or by simulation, and sends. */
async function sizeAndSend(
  settings: SendSettings,
  transactionToSend: TransactionToSend,
  lifetime: BlockhashLifetime,
): Promise<SentUnconfirmed> {
  const shape = transactionToSend.computeUnitsKey;
  const known = shape === undefined ? undefined : settings.knownComputeUnits?.get(shape);
  if (known !== undefined) {
    try {
      return await sendWithUnits(settings, transactionToSend, lifetime, known);
    } catch (error) {
      if (!simulationExplains(error)) throw error;
    }
  }
  const simulationMessage = buildTransactionMessage(
    transactionToSend,
    lifetime,
    MAX_COMPUTE_UNIT_LIMIT,
    settings.priorityFeeMicroLamports,
  );
  let units = await simulate(settings, simulationMessage);
  if (shape !== undefined && settings.knownComputeUnits !== undefined) {
    // The most any transaction of the shape consumed (read again: batches in flight together
    // measure at once); one that consumes more is refused for its budget and measured.
    units = Math.max(units, settings.knownComputeUnits.get(shape) ?? 0);
    settings.knownComputeUnits.set(shape, units);
  }
  return await sendWithUnits(settings, transactionToSend, lifetime, units);
}

/**
 * Simulates, sends and confirms one transaction; see the module comment. Throws a named AbasError
 * for every failure: program errors (ABAS_PROGRAM), the runtime's (ABAS_RUNTIME), the RPC's.
 */
export async function sendAndConfirmTransaction(
  settings: SendSettings,
  transactionToSend: TransactionToSend,
): Promise<SentTransaction> {
  // The node's refusal of the last blockhash, rethrown when every attempt ends that way.
  let blockhashNotFound: unknown;
  let sends = 0;
  let freshBlockhashes = 0;
  // The operation's shared blockhash goes first; refused or expired, it costs no attempt: the
  // attempts are the sends with a blockhash fetched for them.
  let shared = settings.sharedBlockhash?.lifetime;
  while (shared !== undefined || freshBlockhashes < settings.maxSendAttempts) {
    let lifetime: BlockhashLifetime;
    if (shared === undefined) {
      lifetime = await freshBlockhash(settings);
      freshBlockhashes += 1;
    } else {
      lifetime = shared;
      shared = undefined;
    }
    sends += 1;
    let sent: SentUnconfirmed;
    try {
      sent = await sizeAndSend(settings, transactionToSend, lifetime);
    } catch (error) {
      if (!isBlockhashNotFound(error)) throw error;
      blockhashNotFound = error;
      continue;
    }
    const { signature, simulatedComputeUnits, computeUnitLimit, context } = sent;
    const outcome = await waitForConfirmation(settings, signature, lifetime, context);
    if (outcome.landed) {
      return { signature, slot: outcome.slot, simulatedComputeUnits, computeUnitLimit, attempts: sends };
    }
    blockhashNotFound = undefined;
  }
  if (blockhashNotFound !== undefined) throw blockhashNotFound;
  throw new AbasError(ABAS_RUNTIME__BLOCK_HEIGHT_EXCEEDED, { attempts: settings.maxSendAttempts });
}
