/**
 * The attestor's sending side, run on a thread of its own (`sender-thread.ts`) so that building,
 * signing and sending transactions never holds up the thread that records: it cuts batches from
 * the actions it is handed, fixes each on disk, records it with retries, and reports each batch's
 * start and outcome. Receipts are delivered, and batches closed on disk, by the recording thread.
 * A batch whose attempts all failed is reported failed and tried again in the background, one
 * failed batch at a time, until it is recorded or the attestor closes (it then waits in the queue
 * for the next open).
 */
import {
  ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED,
  ABAS_RUNTIME__ATTESTOR_BATCH_FAILED,
  AbasError,
  isAbasError,
} from "@abas/errors";
import { computeCommitment, hexToBytes, SALT_SIZE, type ActionType } from "@abas/program-client";
import type { TransactionSigner } from "@solana/kit";

import { fetchAgentAccount } from "../agent-registration.js";
import { recordBatch, type PreparedBatchItem } from "../batch-attest.js";
import type { ClientContext } from "../client-context.js";
import type { BatchItemReceipt } from "../receipts.js";
import type { ResolvedAttestorOptions } from "./attestor-options.js";
import { queueFailure } from "./queue-failure.js";
import type { QueueBacklog, QueuedAction, QueuedBatch, QueueJournal } from "./queue-journal.js";
import { toThreadError, type ThreadError } from "./thread-errors.js";

export type SenderOptions = Omit<ResolvedAttestorOptions, "maxQueuedActions" | "onReceipt">;

/** From the recording thread to the sender. */
export type ToSender =
  | { type: "actions"; actions: QueuedAction[] }
  /** A flush began (+1) or ended (-1): while one runs, partial batches go out at once. */
  | { type: "flush"; change: 1 | -1 }
  | { type: "close" };

/** From the sender to the recording thread. */
export type FromSender =
  | { type: "ready" }
  | { type: "started"; batchId: number; actionIds: number[] }
  /** `afterFailure`: the batch was reported failed before, and a background attempt recorded it. */
  | {
      type: "confirmed";
      batchId: number;
      actionIds: number[];
      receipts: BatchItemReceipt[];
      afterFailure: boolean;
    }
  | { type: "failed"; batchId: number; actionIds: number[]; error: ThreadError }
  /**
   * The program refused the batch for an action type the agent's policy does not allow: the
   * batch is void, `refusedIds` are refused for good (with `error`), its other actions are queued
   * again. `afterFailure`: the batch had been reported failed before.
   */
  | {
      type: "voided";
      batchId: number;
      actionIds: number[];
      refusedIds: number[];
      error: ThreadError;
      afterFailure: boolean;
    }
  | { type: "closed" }
  /** Another attestor took the queue over (`@abas/dir-lock`): this thread sends nothing more. */
  | { type: "takenOver" };

type UnbatchedAction = { action: QueuedAction; queuedAt: number };
/** `lineWritten`: false while the batch's line could not be written to the queue file (a full disk). */
type FailedBatch = {
  batch: QueuedBatch;
  actions: QueuedAction[];
  prepared: PreparedBatchItem[];
  lineWritten: boolean;
};

/** The longest wait between two background attempts of a failed batch. */
const MAX_FAILED_BATCH_RETRY_MS = 30_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function toPreparedItem(action: QueuedAction): PreparedBatchItem {
  const actionHash = hexToBytes(action.actionHash, 32);
  const actionType = action.actionType as ActionType;
  if (action.salt === undefined)
    return { actionHash, actionType, privacyMode: false, storedHash: actionHash };
  const salt = hexToBytes(action.salt, SALT_SIZE);
  return { actionHash, actionType, privacyMode: true, storedHash: computeCommitment(salt, actionHash), salt };
}

export class BatchSender {
  readonly #context: ClientContext;
  readonly #operator: TransactionSigner;
  readonly #options: SenderOptions;
  readonly #journal: QueueJournal;
  readonly #report: (message: FromSender) => void;
  readonly #unbatched: UnbatchedAction[] = [];
  #nextBatchId: number;
  #batchesInFlight = 0;
  #flushing = 0;
  #pumpScheduled = false;
  #batchTimer: NodeJS.Timeout | undefined;
  #syncTimer: NodeJS.Timeout | undefined;
  readonly #failed: FailedBatch[] = [];
  #retryingFailed = false;
  #closed = false;
  #takenOver = false;

  constructor(
    context: ClientContext,
    operator: TransactionSigner,
    options: SenderOptions,
    journal: QueueJournal,
    backlog: QueueBacklog,
    report: (message: FromSender) => void,
  ) {
    this.#context = context;
    this.#operator = operator;
    this.#options = options;
    this.#journal = journal;
    this.#report = report;
    this.#nextBatchId = backlog.nextBatchId;
    // Actions left from a previous run have waited long enough: they go out at once.
    for (const action of backlog.unbatched) this.#unbatched.push({ action, queuedAt: -Infinity });
    for (const { batch, actions } of backlog.openBatches) this.#startBatch(batch, actions, true);
    if (options.durability === "write") {
      this.#syncTimer = setInterval(() => this.#syncJournal(), options.syncIntervalMs);
    }
    this.#schedulePump();
  }

  receive(message: ToSender): void {
    if (message.type === "actions") {
      // Written by the recording thread, not flushed yet with "write" durability: the next sync covers it.
      this.#journal.noteUnsynced();
      const queuedAt = performance.now();
      for (const action of message.actions) this.#unbatched.push({ action, queuedAt });
      this.#schedulePump();
    } else if (message.type === "flush") {
      this.#flushing += message.change;
      this.#pump();
    } else {
      this.#closed = true;
      clearTimeout(this.#batchTimer);
      clearInterval(this.#syncTimer);
      this.#syncJournal();
      this.#report({ type: "closed" });
    }
  }

  /** A flush that fails (the disk) is tried again at the next one; the recording thread's close reports it. */
  #syncJournal(): void {
    try {
      this.#journal.sync();
    } catch {
      // Still unsynced (sync clears that only once the flush succeeds): the next one tries again.
    }
  }

  /** Cuts batches once the messages at hand are read, so that one batch takes all of them. */
  #schedulePump(): void {
    if (this.#pumpScheduled) return;
    this.#pumpScheduled = true;
    setImmediate(() => {
      this.#pumpScheduled = false;
      this.#pump();
    });
  }

  /** Cuts and starts every batch that is full or due, as long as the in-flight bound allows. */
  #pump(): void {
    const { maxBatchSize, maxBatchDelayMs, maxInFlightBatches } = this.#options;
    clearTimeout(this.#batchTimer);
    this.#batchTimer = undefined;
    while (this.#batchesInFlight < maxInFlightBatches && this.#unbatched.length > 0 && !this.#takenOver) {
      const full = this.#unbatched.length >= maxBatchSize;
      const due = this.#flushing > 0 || performance.now() - this.#unbatched[0]!.queuedAt >= maxBatchDelayMs;
      if (!full && !due) break;
      const actions = this.#unbatched.splice(0, maxBatchSize).map(({ action }) => action);
      const batch: QueuedBatch = { id: this.#nextBatchId, actionIds: actions.map((action) => action.id) };
      this.#nextBatchId += 1;
      try {
        this.#journal.appendBatch(batch);
      } catch (error) {
        // The batch is fixed in memory and its line written later, by the background retries: its
        // receipts reject now (the actions stay in the queue file), as for a batch the ledger refused.
        this.#report({ type: "started", batchId: batch.id, actionIds: [...batch.actionIds] });
        this.#reportFailed(
          { batch, actions, prepared: actions.map(toPreparedItem), lineWritten: false },
          error,
        );
        break;
      }
      this.#startBatch(batch, actions, false);
    }
    if (this.#unbatched.length > 0 && this.#batchesInFlight < maxInFlightBatches) {
      const waited = performance.now() - this.#unbatched[0]!.queuedAt;
      this.#batchTimer = setTimeout(() => this.#pump(), Math.max(0, maxBatchDelayMs - waited));
    }
  }

  /** `resumed`: the batch was cut by an earlier run, which may have sent it. */
  #startBatch(batch: QueuedBatch, actions: QueuedAction[], resumed: boolean): void {
    this.#batchesInFlight += 1;
    this.#report({ type: "started", batchId: batch.id, actionIds: [...batch.actionIds] });
    void this.#sendBatch(batch, actions, resumed).finally(() => {
      this.#batchesInFlight -= 1;
      this.#pump();
    });
  }

  /** Records the batch, with retries, and reports its receipts or why it failed. */
  async #sendBatch(batch: QueuedBatch, actions: QueuedAction[], resumed: boolean): Promise<void> {
    const { maxBatchAttempts, retryDelayMs, queueDir } = this.#options;
    const prepared = actions.map(toPreparedItem);
    let lastError: unknown;
    for (let attempt = 1; attempt <= maxBatchAttempts; attempt++) {
      if (!this.#stillOwner()) return;
      try {
        const result = await recordBatch(this.#context, this.#operator, prepared, {
          // Only a batch that may have been sent before can already be on the ledger.
          resumeRecordedRoot: resumed || attempt > 1,
        });
        this.#reportConfirmed(batch, result.receipts, false);
        return;
      } catch (error) {
        lastError = error;
        if (await this.#voidIfRefused(batch, actions, error, false)) return;
        if (attempt < maxBatchAttempts) await sleep(retryDelayMs * attempt);
      }
    }
    const failure = new AbasError(ABAS_RUNTIME__ATTESTOR_BATCH_FAILED, {
      queueDir,
      batchId: batch.id,
      itemCount: actions.length,
      attempts: maxBatchAttempts,
      cause: lastError,
    });
    this.#reportFailed({ batch, actions, prepared, lineWritten: true }, failure);
  }

  /**
   * Checked before every send: false, reported once, when another attestor took the queue over
   * (QueueJournal.isTakenOver), so that it alone sends the actions it read.
   */
  #stillOwner(): boolean {
    if (this.#takenOver) return false;
    if (!this.#journal.isTakenOver()) return true;
    this.#takenOver = true;
    this.#report({ type: "takenOver" });
    return false;
  }

  /** The batch's receipts reject with `error`; it is tried again in the background. */
  #reportFailed(failed: FailedBatch, error: unknown): void {
    const { batch } = failed;
    const reported = failed.lineWritten
      ? error
      : queueFailure(this.#options.queueDir, `writing the line of batch ${batch.id}`, error);
    this.#report({
      type: "failed",
      batchId: batch.id,
      actionIds: [...batch.actionIds],
      error: toThreadError(reported),
    });
    this.#failed.push(failed);
    void this.#retryFailed();
  }

  /**
   * When the program refused the batch for an action type the agent's policy does not allow, its
   * root was not recorded (the program answers a root it holds with DuplicateBatch before it looks
   * at the policy): the batch is voided on disk, its actions of a type the policy (read
   * now) does not allow are refused for good, and the others are queued again, to go out at once
   * in a new batch. False (an ordinary failed attempt) for any other error, or when the policy
   * cannot be read or allows every action of the batch (it changed meanwhile).
   */
  async #voidIfRefused(
    batch: QueuedBatch,
    actions: QueuedAction[],
    error: unknown,
    afterFailure: boolean,
  ): Promise<boolean> {
    if (this.#closed || !isAbasError(error, ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED)) return false;
    let allowedMask: number;
    try {
      const found = await fetchAgentAccount(this.#context, this.#context.agent.address);
      if (found === null) return false;
      allowedMask = found.account.allowedActionTypes;
    } catch {
      return false;
    }
    const refusedIds = actions
      .filter((action) => (allowedMask & (1 << action.actionType)) === 0)
      .map((action) => action.id);
    if (refusedIds.length === 0 || this.#closed) return false;
    try {
      this.#journal.appendBatchVoided(batch.id, refusedIds);
    } catch {
      return false; // the line is not in the queue file: an ordinary failed attempt, tried again
    }
    const kept = actions.filter((action) => !refusedIds.includes(action.id));
    this.#unbatched.unshift(...kept.map((action) => ({ action, queuedAt: -Infinity })));
    this.#report({
      type: "voided",
      batchId: batch.id,
      actionIds: [...batch.actionIds],
      refusedIds,
      error: toThreadError(error),
      afterFailure,
    });
    this.#schedulePump();
    return true;
  }

  #reportConfirmed(batch: QueuedBatch, receipts: BatchItemReceipt[], afterFailure: boolean): void {
    this.#report({
      type: "confirmed",
      batchId: batch.id,
      actionIds: [...batch.actionIds],
      receipts,
      afterFailure,
    });
    // The recording thread writes the batch's done line after delivering its receipts.
    this.#journal.noteUnsynced();
  }

  /**
   * Tries the failed batches again, oldest first and one at a time (a ledger that is down gets one
   * request chain, not one per batch), waiting longer after each failed try, up to
   * MAX_FAILED_BATCH_RETRY_MS; a batch recorded at last is reported confirmed.
   */
  async #retryFailed(): Promise<void> {
    if (this.#retryingFailed) return;
    this.#retryingFailed = true;
    const { retryDelayMs, maxBatchAttempts } = this.#options;
    let tries = 0;
    try {
      while (!this.#closed && this.#failed.length > 0) {
        tries += 1;
        await sleep(Math.min(retryDelayMs * (maxBatchAttempts + tries), MAX_FAILED_BATCH_RETRY_MS));
        while (!this.#closed && this.#failed.length > 0) {
          const failed = this.#failed[0]!;
          const { batch, actions, prepared } = failed;
          if (!failed.lineWritten) {
            try {
              this.#journal.appendBatch(batch);
              failed.lineWritten = true;
            } catch {
              break; // still cannot be written: the next try, later
            }
          }
          if (!this.#stillOwner()) return;
          try {
            const result = await recordBatch(this.#context, this.#operator, prepared, {
              resumeRecordedRoot: true,
            });
            this.#failed.shift();
            tries = 0;
            if (!this.#closed) this.#reportConfirmed(batch, result.receipts, true);
          } catch (error) {
            if (!(await this.#voidIfRefused(batch, actions, error, true))) break;
            this.#failed.shift();
            tries = 0;
          }
        }
      }
    } finally {
      this.#retryingFailed = false;
    }
  }
}
