import { Worker } from "node:worker_threads";

import { lockDirectory, renewDirectoryLock, type DirectoryLock } from "@abas/dir-lock";
import {
  ABAS_RUNTIME__ATTESTOR_SENDER_STOPPED,
  ABAS_SDK__ATTESTOR_CLOSED,
  ABAS_SDK__ATTESTOR_QUEUE_FULL,
  ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER,
  AbasError,
  isAbasError,
} from "@abas/errors";

import { createClientContext } from "../client-context.js";
import { prepareKeypair } from "../keypair.js";
import type { BatchItemReceipt } from "../receipts.js";
import {
  resolveAttestorOptions,
  type AttestorOptions,
  type ResolvedAttestorOptions,
} from "./attestor-options.js";
import type { FromSender, ToSender } from "./batch-sender.js";
import { makeFolders } from "./make-folders.js";
import { QueueJournal, type QueuedAction } from "./queue-journal.js";
import { queueFailure } from "./queue-failure.js";
import { prepareQueuedAction, type RecordInput } from "./record-input.js";
import type { SenderSetup } from "./sender-thread.js";
import { fromThreadError } from "./thread-errors.js";

/** What `record` hands back at once. */
export type RecordedAction = Readonly<{
  /** The action's number in its queue. */
  id: number;
  actionHash: string;
  /**
   * The action's own receipt, with its Merkle proof, once its batch's root and every leaf are on
   * the ledger; rejects with `ABAS_RUNTIME__ATTESTOR_BATCH_FAILED` when its batch ran out of
   * attempts, and with `ABAS_RUNTIME__ATTESTOR_SENDER_STOPPED` when the sender thread stopped.
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
  /**
   * Whose batch ran out of attempts and is not recorded yet: it is tried again in the background
   * while the attestor is open, and stays on disk for the next open.
   */
  failed: number;
  /** Refused for good since the attestor was opened: of a type the agent's policy does not allow. */
  refused: number;
}>;

type Waiter = { resolve: (receipt: BatchItemReceipt) => void; reject: (error: unknown) => void };

/** Past this size the queue file is cut whenever nothing is left to do, not only at a flush. */
const QUEUE_FILE_CUT_BYTES = 1 << 20;
/** The longest wait between two deliveries of a batch whose receipts the hook did not all take. */
const MAX_REDELIVERY_DELAY_MS = 30_000;

/**
 * The sender thread runs this module's sibling. From TypeScript source (the repository's
 * `abas-source` condition) a thread does not inherit the module hooks of the one that starts it,
 * so it first registers the loader the repository runs its source with, tsx.
 */
function startSenderThread(setup: SenderSetup): Worker {
  const options = { workerData: setup };
  if (!import.meta.url.endsWith(".ts"))
    return new Worker(new URL("./sender-thread.js", import.meta.url), options);
  const entry = new URL("./sender-thread.ts", import.meta.url).href;
  const loader = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(loader)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/**
 * Runs `work`, keeping the process alive until it settles: a caller awaiting flush or close gets
 * its answer, whatever other handles the process has (the sender thread, which keeps it alive
 * only while actions await their batches, may be between two of its messages).
 */
async function whileAwaited<T>(work: () => Promise<T>): Promise<T> {
  const alive = setInterval(() => {}, 2 ** 30);
  try {
    return await work();
  } finally {
    clearInterval(alive);
  }
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
  readonly #options: ResolvedAttestorOptions;
  readonly #journal: QueueJournal;
  readonly #releaseLock: () => void;
  readonly #sender: Worker;
  readonly #waiters = new Map<number, Waiter>();
  readonly #idleWaiters: Array<() => void> = [];
  readonly #outbox: QueuedAction[] = [];
  /** Recorded or resumed, and neither confirmed nor failed yet. */
  #pending: number;
  #nextActionId: number;
  #batchesInFlight = 0;
  #actionsInFlight = 0;
  /** Confirmed, their receipts being delivered, their batches not closed on disk yet. */
  #delivering = 0;
  /**
   * Confirmed batches whose receipts the hook did not all take, left open in the queue: delivered
   * again while the attestor is open (`#redeliver`), and by the next open otherwise.
   */
  readonly #undelivered = new Map<number, readonly BatchItemReceipt[]>();
  #redelivery: { timer: NodeJS.Timeout | undefined; attempt: number; running?: Promise<void> } = {
    timer: undefined,
    attempt: 0,
  };
  #flushing = 0;
  #confirmed = 0;
  #failed = 0;
  #refused = 0;
  #closing: Promise<void> | undefined;
  #senderExited: Promise<void>;
  #senderClosed: (() => void) | undefined;
  /** Why the sender thread stopped, once it broke or exited unasked. */
  #senderStop: { reason: string; cause?: unknown } | undefined;
  #stoppingSender = false;
  #journalHasEntries = true;
  #journalClosed = false;

  private constructor(
    options: ResolvedAttestorOptions,
    journal: QueueJournal,
    releaseLock: () => void,
    sender: Worker,
    pending: number,
    nextActionId: number,
  ) {
    this.#options = options;
    this.#journal = journal;
    this.#releaseLock = releaseLock;
    this.#sender = sender;
    this.#pending = pending;
    this.#nextActionId = nextActionId;
    this.#senderExited = new Promise((resolve) => sender.once("exit", () => resolve()));
  }

  /**
   * Opens the queue directory (taking its lock), and resumes what a previous run left: batches
   * already cut are completed, queued actions are batched. Batches are built, signed and sent on
   * a thread of the attestor's own, so they never hold up the thread that calls `record`.
   */
  static async open(options: AttestorOptions): Promise<Attestor> {
    const resolved = resolveAttestorOptions(options);
    const context = createClientContext(options.client);
    const [agent, operator] = await Promise.all([
      context.agent.getSigner(),
      prepareKeypair(options.operatorKeypair, "operatorKeypair").getSigner(),
    ]);
    const { queueDir } = resolved;
    let lock: DirectoryLock;
    try {
      makeFolders(queueDir);
      lock = await lockDirectory(queueDir);
    } catch (error) {
      throw queueFailure(queueDir, "creating the queue directory and taking its lock", error);
    }
    let opened: ReturnType<typeof QueueJournal.open>;
    try {
      opened = QueueJournal.open(queueDir, resolved.durability, lock);
    } catch (error) {
      try {
        lock.release();
      } catch {
        // The failure to report is the queue file's; a lock this process leaves is taken over once it ends.
      }
      throw queueFailure(queueDir, "reading the queue file", error);
    }
    const { journal, backlog } = opened;
    const { maxQueuedActions: _bound, onReceipt: _hook, ...senderOptions } = resolved;
    const setup: SenderSetup = {
      journalFd: journal.fd,
      lock: lock.id,
      settings: context.settings,
      agentKeyPair: agent.keyPair,
      operatorKeyPair: operator.keyPair,
      options: senderOptions,
      backlog,
    };
    // Renewed now, as a long reading of the queue may have held this thread past a renewal.
    renewDirectoryLock(lock.id.file);
    let sender: Worker;
    try {
      sender = startSenderThread(setup);
    } catch (error) {
      journal.close();
      lock.release();
      throw error;
    }
    const pending =
      backlog.unbatched.length + backlog.openBatches.reduce((sum, { actions }) => sum + actions.length, 0);
    const attestor = new Attestor(resolved, journal, lock.release, sender, pending, backlog.nextActionId);
    try {
      await attestor.#startSender();
    } catch (error) {
      await sender.terminate();
      journal.close();
      lock.release();
      throw error;
    }
    return attestor;
  }

  /**
   * Throws what `record` throws before it writes anything (`ABAS_SDK__ATTESTOR_CLOSED`,
   * `ABAS_RUNTIME__ATTESTOR_SENDER_STOPPED`, `ABAS_SDK__ATTESTOR_QUEUE_FULL`): asked before an
   * action with side effects runs, so that one that could not be recorded is not taken at all.
   */
  assertAccepting(): void {
    const { queueDir, maxQueuedActions } = this.#options;
    if (this.#closing !== undefined) throw new AbasError(ABAS_SDK__ATTESTOR_CLOSED, { queueDir });
    if (this.#senderStop !== undefined) throw this.#senderStoppedError();
    if (this.#pending >= maxQueuedActions) {
      throw new AbasError(ABAS_SDK__ATTESTOR_QUEUE_FULL, { queueDir, maxQueuedActions });
    }
  }

  /**
   * Records one action: checks it, writes it to the queue (see `durability`) and returns. Throws
   * `ABAS_SDK__ATTESTOR_QUEUE_FULL` when `maxQueuedActions` await confirmation,
   * `ABAS_SDK__ATTESTOR_CLOSED` after `close()`, and `ABAS_RUNTIME__ATTESTOR_SENDER_STOPPED` once
   * the sender thread stopped (nothing would send the action until the next open); nothing is
   * written then.
   */
  record(input: RecordInput): RecordedAction {
    this.assertAccepting();
    const { queueDir } = this.#options;
    const action = prepareQueuedAction(input, this.#nextActionId);
    try {
      this.#journal.appendAction(action);
    } catch (error) {
      throw queueFailure(queueDir, "writing the action to the queue file", error);
    }
    if (this.#journal.isTakenOver()) throw this.#onTakenOver(action.actionHash);
    this.#journalHasEntries = true;
    this.#nextActionId += 1;
    this.#pending += 1;
    // While actions await their batches the sender thread keeps the process alive.
    if (this.#pending === 1) this.#sender.ref();
    const receipt = new Promise<BatchItemReceipt>((resolve, reject) =>
      this.#waiters.set(action.id, { resolve, reject }),
    );
    // A caller that never awaits the receipt must not crash the process when its batch fails.
    receipt.catch(() => {});
    // Handed to the sender once the caller's current run ends: actions recorded together are
    // batched together, and one message carries them.
    if (this.#outbox.push(action) === 1) queueMicrotask(() => this.#postOutbox());
    return { id: action.id, actionHash: action.actionHash, receipt };
  }

  get metrics(): AttestorMetrics {
    return {
      queued: this.#pending - this.#actionsInFlight - this.#delivering,
      inFlight: this.#actionsInFlight,
      batchesInFlight: this.#batchesInFlight,
      confirmed: this.#confirmed,
      failed: this.#failed,
      refused: this.#refused,
    };
  }

  /** Sends every queued action now, without waiting for full batches, and waits until none is queued or in flight. */
  async flush(): Promise<void> {
    await whileAwaited(() => this.#flush());
  }

  async #flush(): Promise<void> {
    if (this.#senderStop !== undefined) throw this.#senderStoppedError();
    this.#flushing += 1;
    // Actions recorded in this turn go first, so that the flush cuts one batch with them.
    this.#postOutbox();
    this.#post({ type: "flush", change: 1 });
    try {
      this.#notifyIfIdle();
      while (this.#pending > 0) {
        if (this.#senderStop !== undefined) throw this.#senderStoppedError();
        await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
      }
    } finally {
      this.#flushing -= 1;
      this.#post({ type: "flush", change: -1 });
    }
  }

  /** Stops accepting actions, flushes, stops the sender thread, and releases the queue directory. */
  async close(): Promise<void> {
    this.#closing ??= whileAwaited(async () => {
      // Whatever flush meets (a stopped sender), the thread is stopped and the queue released;
      // the first failure is the one reported.
      let failure: unknown;
      try {
        await this.#flush();
      } catch (error) {
        failure = error;
      }
      await this.#stopSender();
      // A batch recorded in the background may have been confirmed after flush returned: its
      // receipts are delivered and its done line written before the queue closes (unless the
      // sender stopped unasked: the next open delivers them).
      while (this.#senderStop === undefined && this.#delivering > 0) {
        await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
      }
      // A delivery again of batches left open, under way, ends first: no hook is called after close.
      await this.#redelivery.running;
      this.#journalClosed = true;
      // Batches left open stay so for the next open.
      clearTimeout(this.#redelivery.timer);
      try {
        try {
          this.#journal.close();
        } finally {
          this.#releaseLock();
        }
      } catch (error) {
        failure ??= queueFailure(
          this.#options.queueDir,
          "closing the queue file and releasing its lock",
          error,
        );
      }
      if (failure !== undefined) throw failure;
    });
    await this.#closing;
  }

  /** Hands the actions recorded since the last hand-over to the sender, in one message. */
  #postOutbox(): void {
    if (this.#outbox.length > 0) this.#post({ type: "actions", actions: this.#outbox.splice(0) });
  }

  #post(message: ToSender): void {
    if (this.#senderStop === undefined) this.#sender.postMessage(message);
  }

  /** Wires the sender thread's reports, and waits until it runs. */
  #startSender(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#sender.on("message", (message: FromSender) => {
        if (message.type === "ready") {
          this.#updateKeepAlive();
          resolve();
        } else this.#onSenderReport(message);
      });
      // Not a batch that failed (those are reported): the thread itself broke, or ended unasked.
      this.#sender.on("error", (error) => {
        this.#onSenderStopped({
          reason: error instanceof Error ? error.message : String(error),
          cause: error,
        });
        reject(this.#senderStoppedError());
      });
      this.#sender.on("exit", (exitCode) => {
        if (this.#stoppingSender || this.#senderStop !== undefined) return;
        this.#onSenderStopped({ reason: `the thread exited with code ${exitCode}` });
        reject(this.#senderStoppedError());
      });
    });
  }

  /** Nothing more is sent: every receipt awaited rejects, flush and record throw; the queue keeps the actions. */
  #onSenderStopped(stop: { reason: string; cause?: unknown }): void {
    this.#senderStop = stop;
    for (const waiter of this.#waiters.values()) waiter.reject(this.#senderStoppedError());
    this.#waiters.clear();
    for (const wake of this.#idleWaiters.splice(0)) wake();
  }

  /**
   * Another attestor took the queue over (this process was paused or held up past the lock's
   * renewals): this one stops sending and recording; the actions it recorded are the new owner's,
   * and so may be the action of the record that found it out (`actionHash`).
   */
  #onTakenOver(actionHash?: string): AbasError {
    const { queueDir } = this.#options;
    const error = new AbasError(
      ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER,
      actionHash === undefined ? { queueDir } : { queueDir, actionHash },
    );
    // The queue file is no longer this attestor's to write: no done line, no cut.
    this.#journalClosed = true;
    if (this.#senderStop === undefined) {
      this.#onSenderStopped({ reason: error.message, cause: error });
      void this.#sender.terminate();
    }
    return error;
  }

  #senderStoppedError(): AbasError {
    const { reason, cause } = this.#senderStop!;
    if (isAbasError(cause, ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER)) return cause;
    return new AbasError(ABAS_RUNTIME__ATTESTOR_SENDER_STOPPED, {
      queueDir: this.#options.queueDir,
      reason,
      ...(cause === undefined ? {} : { cause }),
    });
  }

  async #stopSender(): Promise<void> {
    this.#stoppingSender = true;
    if (this.#senderStop === undefined) {
      this.#sender.ref();
      await new Promise<void>((resolve) => {
        this.#senderClosed = resolve;
        this.#sender.once("exit", () => resolve());
        this.#sender.postMessage({ type: "close" } satisfies ToSender);
      });
    }
    await this.#sender.terminate();
    await this.#senderExited;
  }

  #onSenderReport(message: FromSender): void {
    if (message.type === "started") {
      this.#batchesInFlight += 1;
      this.#actionsInFlight += message.actionIds.length;
    } else if (message.type === "confirmed") {
      const count = message.actionIds.length;
      // Counted first: whoever awaits a receipt sees the metrics of its batch settled.
      if (message.afterFailure) {
        // Its receipts were rejected already: onReceipt still gets them, and its done line is written.
        this.#failed -= count;
        this.#pending += count;
      } else {
        this.#batchesInFlight -= 1;
        this.#actionsInFlight -= count;
      }
      this.#delivering += count;
      this.#confirmed += count;
      // Every handle of the batch resolves now: whatever stops the sender meanwhile, a confirmed
      // action's receipt is never rejected. Only the hook's calls are spread over turns.
      for (const [index, id] of message.actionIds.entries()) {
        this.#waiters.get(id)?.resolve(message.receipts[index]!);
        this.#waiters.delete(id);
      }
      void this.#deliver(message.receipts).then((delivered) =>
        this.#closeBatch(message.batchId, count, delivered.includes(false) ? message.receipts : undefined),
      );
    } else if (message.type === "failed") {
      this.#batchesInFlight -= 1;
      this.#actionsInFlight -= message.actionIds.length;
      this.#pending -= message.actionIds.length;
      this.#failed += message.actionIds.length;
      this.#rejectWaiters(message.actionIds, fromThreadError(message.error));
      this.#notifyIfIdle();
    } else if (message.type === "voided") {
      const count = message.actionIds.length;
      const refused = message.refusedIds.length;
      if (message.afterFailure) {
        // Its actions were counted failed and left the pending ones; the kept ones are queued again.
        this.#failed -= count;
        this.#pending += count - refused;
      } else {
        this.#batchesInFlight -= 1;
        this.#actionsInFlight -= count;
        this.#pending -= refused;
      }
      this.#refused += refused;
      this.#rejectWaiters(message.refusedIds, fromThreadError(message.error));
      this.#notifyIfIdle();
    } else if (message.type === "closed") {
      this.#senderClosed?.();
    } else if (message.type === "takenOver") {
      this.#onTakenOver();
    }
  }

  /** The receipts awaited for these actions reject with `error`. */
  #rejectWaiters(actionIds: readonly number[], error: unknown): void {
    for (const id of actionIds) {
      this.#waiters.get(id)?.reject(error);
      this.#waiters.delete(id);
    }
  }

  /**
   * Written once the batch's receipts are delivered: a crash before delivers them again, never
   * loses them. A batch whose receipts the hook did not all take (`undelivered`) stays open.
   */
  #closeBatch(batchId: number, count: number, undelivered?: readonly BatchItemReceipt[]): void {
    // Closed meanwhile (a stopped sender cuts a close short): the queue is no longer this
    // attestor's, and the next open delivers the batch's receipts again.
    if (this.#journalClosed) return;
    if (undelivered === undefined) {
      try {
        this.#journal.appendBatchDone(batchId);
      } catch {
        // The queue file cannot be written now (a full disk): the batch stays open, and the next
        // open delivers its receipts again, which loses nothing.
      }
    } else {
      this.#undelivered.set(batchId, undelivered);
      this.#scheduleRedelivery();
    }
    this.#delivering -= count;
    this.#pending -= count;
    this.#notifyIfIdle();
  }

  /**
   * Hands a batch's receipts to the hook one per turn of the event loop: a hook that serialises
   * and writes a file for each receipt then holds the agent's thread for one receipt at a time,
   * never for a whole batch, and what the agent waits for meanwhile (a response, a timer) is served
   * in between. Whether the hook took each; none is handed out once the queue is closed (the
   * batch stays open, and the next open delivers them).
   */
  async #deliver(receipts: readonly BatchItemReceipt[]): Promise<boolean[]> {
    const delivered: Array<Promise<boolean> | boolean> = [];
    for (const [index, receipt] of receipts.entries()) {
      if (index > 0) await new Promise((resolve) => setImmediate(resolve));
      delivered.push(!this.#journalClosed && this.#options.onReceipt(receipt));
    }
    return Promise.all(delivered);
  }

  /** The next delivery of the batches left open: `retryDelayMs` × attempt later, at most 30 s. */
  #scheduleRedelivery(): void {
    // One under way schedules the next when it ends.
    if (this.#redelivery.timer !== undefined || this.#redelivery.running !== undefined) return;
    if (this.#undelivered.size === 0 || this.#journalClosed) return;
    this.#redelivery.attempt += 1;
    const delay = Math.min(MAX_REDELIVERY_DELAY_MS, this.#options.retryDelayMs * this.#redelivery.attempt);
    this.#redelivery.timer = setTimeout(() => {
      this.#redelivery.running = this.#redeliver().finally(() => {
        this.#redelivery.running = undefined;
        this.#scheduleRedelivery();
      });
    }, delay);
    // An agent that ends meanwhile leaves them to the next open.
    this.#redelivery.timer.unref();
  }

  /** Gives the hook each batch left open again; a batch it now takes whole is closed. */
  async #redeliver(): Promise<void> {
    this.#redelivery.timer = undefined;
    for (const [batchId, receipts] of [...this.#undelivered]) {
      const delivered = await this.#deliver(receipts);
      if (this.#journalClosed) return;
      if (delivered.includes(false)) continue;
      try {
        this.#journal.appendBatchDone(batchId);
      } catch {
        continue; // the queue file cannot be written now: the batch stays open, for later or the next open
      }
      this.#undelivered.delete(batchId);
    }
    if (this.#undelivered.size === 0) this.#redelivery.attempt = 0;
    this.#notifyIfIdle();
  }

  #notifyIfIdle(): void {
    this.#updateKeepAlive();
    if (this.#pending > 0) return;
    // Nothing is left to do: the queue file starts over rather than grow for as long as the agent
    // runs; at a flush, or once it is large, since cutting a file costs the recording thread a
    // disk operation. Not after a failed batch, nor with a batch left open: they stay in the file
    // for the next open. The sender thread writes to the file only while it holds actions, so none
    // of its lines is cut.
    const worthCutting = (): boolean => this.#flushing > 0 || this.#journal.size() >= QUEUE_FILE_CUT_BYTES;
    const keep = this.#failed > 0 || this.#undelivered.size > 0;
    const takenOver = (): boolean => {
      if (!this.#journal.isTakenOver()) return false;
      this.#onTakenOver();
      return true;
    };
    if (this.#journalHasEntries && !keep && !this.#journalClosed && worthCutting() && !takenOver()) {
      try {
        this.#journal.truncate();
        this.#journalHasEntries = false;
      } catch {
        // Not cut this time (the disk); what the file holds is all done, and it is cut later.
      }
    }
    for (const wake of this.#idleWaiters.splice(0)) wake();
  }

  /** The sender thread keeps the process alive only while actions await their batches. */
  #updateKeepAlive(): void {
    if (this.#pending > 0) this.#sender.ref();
    else this.#sender.unref();
  }
}
