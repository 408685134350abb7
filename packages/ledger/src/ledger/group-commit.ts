/**
 * Group commit of the transactions clients send. Each submission runs in the next batch: the
 * batch runs its steps one after the other (a step executes a transaction and appends its record
 * to the log without waiting for the disk), then one fdatasync covers every record of the batch;
 * only then is each step published (indexed, announced) and its caller answered. Submissions that
 * arrive while a batch syncs wait for the next one, so the SVM is never ahead of the disk by more
 * than the batch being synced, and a read that first awaits `settled()` sees only durable state.
 */
import type { EventLog } from "../storage/event-log.js";

export interface BatchStep<T> {
  readonly outcome: T;
  /** Present when the step appended a record: runs once that record is on disk. */
  readonly publish?: () => void;
}

/** The ledger was closed while the submission waited. */
export class LedgerClosedError extends Error {
  override readonly name = "LedgerClosedError";
  constructor() {
    super("the ledger is shutting down");
  }
}

interface Job {
  readonly run: () => BatchStep<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

interface Batch {
  readonly steps: { readonly job: Job; readonly step: BatchStep<unknown> }[];
  readonly settled: Promise<void>;
  readonly markSettled: () => void;
  finished: boolean;
}

export interface GroupCommitHooks {
  /** The log could not be synced: returns the error to give every waiting caller. */
  readonly onSyncFailure: (error: Error) => Error;
  /** Appends what the batch's sync is to cover besides its steps' records (may throw as a sync). */
  readonly beforeSync: () => void;
  /** Runs when no batch is in flight, after a batch was published (snapshots go here). */
  readonly betweenBatches: () => void;
}

export class GroupCommit {
  private queue: Job[] = [];
  private inFlight: Batch | undefined;
  private scheduled = false;
  private closed = false;

  constructor(
    private readonly log: EventLog,
    private readonly hooks: GroupCommitHooks,
  ) {}

  /** Runs `step` in the next batch; resolves with its outcome once its record (if any) is on disk. */
  submit<T>(step: () => BatchStep<T>): Promise<T> {
    if (this.closed) return Promise.reject(new LedgerClosedError());
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run: step, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  /** Resolves once no batch is between execution and publication (at once when none is). */
  settled(): Promise<void> {
    return this.inFlight?.settled ?? Promise.resolve();
  }

  /** On shutdown: makes the batch in flight durable and publishes it now; refuses what still waits. */
  drain(): void {
    this.closed = true;
    const batch = this.inFlight;
    if (batch !== undefined) {
      try {
        this.log.flush();
        this.publish(batch);
      } catch (error) {
        this.fail(batch, error as Error);
      }
    }
    for (const job of this.queue.splice(0)) job.reject(new LedgerClosedError());
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight !== undefined || this.queue.length === 0) return;
    this.scheduled = true;
    // After the requests already read in this turn of the event loop, so that they join the batch.
    setImmediate(() => {
      this.scheduled = false;
      this.runBatch();
    });
  }

  private runBatch(): void {
    if (this.closed || this.inFlight !== undefined) return;
    const jobs = this.queue.splice(0);
    const appended: Batch["steps"] = [];
    for (const job of jobs) {
      let step: BatchStep<unknown>;
      try {
        step = job.run();
      } catch (error) {
        job.reject(error);
        continue;
      }
      // A step that wrote nothing changed nothing: its answer need not wait for the disk.
      if (step.publish === undefined) job.resolve(step.outcome);
      else appended.push({ job, step });
    }
    if (appended.length === 0) {
      this.schedule();
      return;
    }
    let markSettled = (): void => {};
    const settled = new Promise<void>((resolve) => (markSettled = resolve));
    const batch: Batch = { steps: appended, settled, markSettled, finished: false };
    this.inFlight = batch;
    try {
      this.hooks.beforeSync();
    } catch (error) {
      this.fail(batch, error as Error);
      return;
    }
    this.log.sync().then(
      () => this.publish(batch),
      (error: unknown) => this.fail(batch, error as Error),
    );
  }

  private publish(batch: Batch): void {
    if (batch.finished) return;
    for (const { job, step } of batch.steps) {
      try {
        step.publish!();
        job.resolve(step.outcome);
      } catch (error) {
        job.reject(error);
      }
    }
    this.finish(batch);
  }

  private fail(batch: Batch, error: Error): void {
    if (batch.finished) return;
    const failure = this.hooks.onSyncFailure(error);
    for (const { job } of batch.steps) job.reject(failure);
    this.finish(batch);
  }

  private finish(batch: Batch): void {
    batch.finished = true;
    this.inFlight = undefined;
    // Readers waiting on `settled` run (as microtasks) before the next batch can start.
    batch.markSettled();
    if (this.closed) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.closed) return;
      this.hooks.betweenBatches();
      this.runBatch();
    });
  }
}
