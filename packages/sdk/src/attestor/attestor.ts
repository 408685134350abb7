import { mkdirSync } from "node:fs";
import { performance } from "node:perf_hooks";

import {
  ABAS_RUNTIME__ATTESTOR_BATCH_FAILED,
  ABAS_SDK__ATTESTOR_CLOSED,
  ABAS_SDK__ATTESTOR_QUEUE_FULL,
  AbasError,
} from "@abas/errors";
import { computeCommitment, hexToBytes, SALT_SIZE, type ActionType } from "@abas/program-client";
import type { TransactionSigner } from "@solana/kit";

import { recordBatch, type PreparedBatchItem } from "../batch-attest.js";
import { createClientContext, type ClientContext } from "../client-context.js";
import { prepareKeypair } from "../keypair.js";
import type { BatchItemReceipt } from "../receipts.js";
import {
  resolveAttestorOptions,
  type AttestorOptions,
  type ResolvedAttestorOptions,
} from "./attestor-options.js";
import { QueueJournal, type QueuedAction, type QueuedBatch } from "./queue-journal.js";
import { lockQueueDirectory } from "./queue-lock.js";
import { prepareQueuedAction, type RecordInput } from "./record-input.js";

/** What `record` hands back at once. */
export type RecordedAction = Readonly<{
  /** The action's number in its queue. */
  id: number;
  actionHash: string;
  /**
   * The action's own receipt, with its Merkle proof, once its batch's root and every leaf are on
   * the ledger; rejects with `ABAS_RUNTIME__ATTESTOR_BATCH_FAILED` when its batch ran out of attempts.
   */
  receipt: Promise<BatchItemReceipt>;
}>;

export type AttestorMetrics = Readonly<{
  /** Recorded on disk, in no batch yet. */
  queued: number;
  /** In batches being sent. */
  inFlight: number;
  batchesInFlight: number;
  /** Confirmed by this attestor since it was opened (resumed batches included). */
  confirmed: number;
  /** Whose batch ran out of attempts since the attestor was opened; they stay on disk for the next open. */
  failed: number;
}>;

type Waiter = { resolve: (receipt: BatchItemReceipt) => void; reject: (error: unknown) => void };
type UnbatchedAction = { action: QueuedAction; queuedAt: number };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function toPreparedItem(action: QueuedAction): PreparedBatchItem {
  const actionHash = hexToBytes(action.actionHash, 32);
  const actionType = action.actionType as ActionType;
  if (action.salt === undefined)
    return { actionHash, actionType, privacyMode: false, storedHash: actionHash };
  const salt = hexToBytes(action.salt, SALT_SIZE);
  return { actionHash, actionType, privacyMode: true, storedHash: computeCommitment(salt, actionHash), salt };
}

/**
 * A durable, batching attestor: `record` writes the action to an on-disk queue and returns at
 * once; batches of up to 100 are cut by size or delay and recorded under one signed Merkle root,
 * then their leaves are published. A batch's actions are fixed on disk before it is sent, so a
 * restart after a crash sends the same batch again, and a batch whose root the ledger already
 * holds is continued, never recorded twice.
 *
 * ```ts
 * const attestor = await Attestor.open({ client: { rpcUrl, agentKeypair }, operatorKeypair, queueDir: "./abas-queue" });
 * const { receipt } = attestor.record({ actionType: "ToolCall", payload: { tool: "search", query: "sol" } });
 * console.log((await receipt).merkleRoot);
 * await attestor.close();
 * ```
 */
export class Attestor {
  readonly #context: ClientContext;
  readonly #operator: TransactionSigner;
  readonly #options: ResolvedAttestorOptions;
  readonly #journal: QueueJournal;
  readonly #releaseLock: () => void;
  readonly #unbatched: UnbatchedAction[] = [];
  readonly #waiters = new Map<number, Waiter>();
  readonly #idleWaiters: Array<() => void> = [];
  #nextActionId: number;
  #nextBatchId: number;
  #batchesInFlight = 0;
  #actionsInFlight = 0;
  #confirmed = 0;
  #failed = 0;
  #flushing = 0;
  #pumpScheduled = false;
  #batchTimer: NodeJS.Timeout | undefined;
  #syncTimer: NodeJS.Timeout | undefined;
  #closing: Promise<void> | undefined;
  #journalHasEntries = true;

  private constructor(
    context: ClientContext,
    operator: TransactionSigner,
    options: ResolvedAttestorOptions,
    releaseLock: () => void,
  ) {
    this.#context = context;
    this.#operator = operator;
    this.#options = options;
    this.#releaseLock = releaseLock;
    let opened: ReturnType<typeof QueueJournal.open>;
    try {
      opened = QueueJournal.open(options.queueDir, options.durability);
    } catch (error) {
      releaseLock();
      throw error;
    }
    const { journal, backlog } = opened;
    this.#journal = journal;
    this.#nextActionId = backlog.nextActionId;
    this.#nextBatchId = backlog.nextBatchId;
    // Actions left from a previous run have waited long enough: they go out at once.
    for (const action of backlog.unbatched) this.#unbatched.push({ action, queuedAt: -Infinity });
    for (const { batch, actions } of backlog.openBatches) this.#startBatch(batch, actions);
    if (options.durability === "write") {
      this.#syncTimer = setInterval(() => this.#journal.sync(), options.syncIntervalMs);
      this.#syncTimer.unref();
    }
    this.#schedulePump();
  }

  /**
   * Opens the queue directory (taking its lock), and resumes what a previous run left: batches
   * already cut are completed, queued actions are batched.
   */
  static async open(options: AttestorOptions): Promise<Attestor> {
    const resolved = resolveAttestorOptions(options);
    const context = createClientContext(options.client);
    const operator = await prepareKeypair(options.operatorKeypair, "operatorKeypair").getSigner();
    mkdirSync(resolved.queueDir, { recursive: true });
    const releaseLock = lockQueueDirectory(resolved.queueDir);
    return new Attestor(context, operator, resolved, releaseLock);
  }

  /**
   * Records one action: checks it, writes it to the queue (see `durability`) and returns. Throws
   * `ABAS_SDK__ATTESTOR_QUEUE_FULL` when `maxQueuedActions` await confirmation, and
   * `ABAS_SDK__ATTESTOR_CLOSED` after `close()`; nothing is written then.
   */
  record(input: RecordInput): RecordedAction {
    const { queueDir, maxQueuedActions } = this.#options;
    if (this.#closing !== undefined) throw new AbasError(ABAS_SDK__ATTESTOR_CLOSED, { queueDir });
    if (this.#unbatched.length + this.#actionsInFlight >= maxQueuedActions) {
      throw new AbasError(ABAS_SDK__ATTESTOR_QUEUE_FULL, { queueDir, maxQueuedActions });
    }
    const action = prepareQueuedAction(input, this.#nextActionId);
    this.#journal.appendAction(action);
    this.#journalHasEntries = true;
    this.#nextActionId += 1;
    this.#unbatched.push({ action, queuedAt: performance.now() });
    const receipt = new Promise<BatchItemReceipt>((resolve, reject) =>
      this.#waiters.set(action.id, { resolve, reject }),
    );
    // A caller that never awaits the receipt must not crash the process when its batch fails.
    receipt.catch(() => {});
    this.#schedulePump();
    return { id: action.id, actionHash: action.actionHash, receipt };
  }

  get metrics(): AttestorMetrics {
    return {
      queued: this.#unbatched.length,
      inFlight: this.#actionsInFlight,
      batchesInFlight: this.#batchesInFlight,
      confirmed: this.#confirmed,
      failed: this.#failed,
    };
  }

  /** Sends every queued action now, without waiting for full batches, and waits until none is queued or in flight. */
  async flush(): Promise<void> {
    this.#flushing += 1;
    try {
      this.#pump();
      while (!this.#isIdle()) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
    } finally {
      this.#flushing -= 1;
    }
  }

  /** Stops accepting actions, flushes, and releases the queue directory. */
  async close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.flush();
      clearTimeout(this.#batchTimer);
      clearInterval(this.#syncTimer);
      this.#journal.close();
      this.#releaseLock();
    })();
    await this.#closing;
  }

  #isIdle(): boolean {
    return this.#unbatched.length === 0 && this.#batchesInFlight === 0;
  }

  #notifyIfIdle(): void {
    if (!this.#isIdle()) return;
    // Nothing is left to do: the queue file starts over rather than grow for as long as the agent
    // runs. Not after a failed batch: it stays in the file for the next open.
    if (this.#journalHasEntries && this.#failed === 0) {
      this.#journal.truncate();
      this.#journalHasEntries = false;
    }
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }

  /** Cuts batches after the current call returns, so `record` itself never waits for one. */
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
    while (this.#batchesInFlight < maxInFlightBatches && this.#unbatched.length > 0) {
      const full = this.#unbatched.length >= maxBatchSize;
      const due = this.#flushing > 0 || performance.now() - this.#unbatched[0]!.queuedAt >= maxBatchDelayMs;
      if (!full && !due) break;
      const actions = this.#unbatched.splice(0, maxBatchSize).map(({ action }) => action);
      const batch: QueuedBatch = { id: this.#nextBatchId, actionIds: actions.map((action) => action.id) };
      this.#journal.appendBatch(batch);
      this.#nextBatchId += 1;
      this.#startBatch(batch, actions);
    }
    if (this.#unbatched.length > 0 && this.#batchesInFlight < maxInFlightBatches) {
      const waited = performance.now() - this.#unbatched[0]!.queuedAt;
      this.#batchTimer = setTimeout(() => this.#pump(), Math.max(0, maxBatchDelayMs - waited));
    }
    this.#notifyIfIdle();
  }

  #startBatch(batch: QueuedBatch, actions: QueuedAction[]): void {
    this.#batchesInFlight += 1;
    this.#actionsInFlight += actions.length;
    void this.#sendBatch(batch, actions).finally(() => {
      this.#batchesInFlight -= 1;
      this.#actionsInFlight -= actions.length;
      this.#pump();
    });
  }

  /** Records the batch, with retries; on success settles its actions' receipts and closes it on disk. */
  async #sendBatch(batch: QueuedBatch, actions: QueuedAction[]): Promise<void> {
    const { maxBatchAttempts, retryDelayMs, onReceipt, queueDir } = this.#options;
    const prepared = actions.map(toPreparedItem);
    let lastError: unknown;
    for (let attempt = 1; attempt <= maxBatchAttempts; attempt++) {
      try {
        const result = await recordBatch(this.#context, this.#operator, prepared, {
          resumeRecordedRoot: true,
        });
        result.receipts.forEach((receipt, index) => {
          const id = actions[index]!.id;
          this.#waiters.get(id)?.resolve(receipt);
          this.#waiters.delete(id);
          onReceipt(receipt);
        });
        // Written after the receipts are delivered: a crash in between delivers them again, never loses them.
        this.#journal.appendBatchDone(batch.id);
        this.#confirmed += actions.length;
        return;
      } catch (error) {
        lastError = error;
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
    for (const { id } of actions) {
      this.#waiters.get(id)?.reject(failure);
      this.#waiters.delete(id);
    }
    this.#failed += actions.length;
  }
}
