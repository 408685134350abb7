/**
 * The ledger: the SVM, its clock, recent blockhashes, the transaction history and the event log,
 * behind the operations the RPC layer needs.
 *
 * Sent transactions run in batches (group commit): each is executed and appended to the log, one
 * fdatasync covers the batch, and only then is each indexed, announced and answered. So no request
 * can observe a transaction that is not yet on disk (reads of account state wait for `settled()`),
 * and no two transactions interleave.
 */
import type { Address, EncodedAccount } from "@solana/kit";
import type { LiteSVM } from "litesvm";

import type { Logger } from "../logger.js";
import { DataDirTakenOverError } from "../storage/data-dir.js";
import type { EventLog, LogPosition } from "../storage/event-log.js";
import { HistoryIndex, type HistoryEntry, type SignatureQuery } from "../storage/history-index.js";
import { decodeLogRecord, encodeLogRecord, type TransactionRecord } from "../storage/log-record.js";
import type { SnapshotStore } from "../storage/snapshot-store.js";
import { readComputeBudget } from "../transactions/fees.js";
import { extractMemo } from "../transactions/memo.js";
import { verifyTransactionSignatures } from "../transactions/signature-verification.js";
import type { RpcTransactionError } from "../transactions/transaction-error.js";
import {
  MalformedTransactionError,
  parseWireTransaction,
  type WireTransaction,
} from "../transactions/wire-transaction.js";
import { MAX_PROCESSING_AGE } from "./blockhash-window.js";
import {
  executeTransaction,
  revertFailedExecution,
  simulateTransaction,
  type Execution,
  type Simulation,
} from "./execute-transaction.js";
import type { Faucet } from "./faucet.js";
import { GroupCommit, type BatchStep } from "./group-commit.js";
import type { BlockClock, ClockAnchor } from "./ledger-time.js";
import { Signal } from "./signal.js";
import { SlotClock, type SlotInfo } from "./slot-clock.js";
import { SlotHashesWindow } from "./slot-hashes.js";
import { setSvmClock } from "./svm-factory.js";

export interface GenesisInfo {
  readonly programId: Address;
  /** base58 of 32 random bytes drawn at genesis; also seeds every blockhash. */
  readonly genesisHash: string;
  readonly faucet: Address;
  readonly createdAt: string;
}

export interface LandedTransaction {
  readonly signature: string;
  readonly slot: bigint;
  readonly err: RpcTransactionError | null;
  readonly logs: readonly string[];
  readonly accountKeys: readonly Address[];
}

/** What became of a sent transaction; a refusal carries what a validator's preflight reports. */
export type SendOutcome =
  | { readonly kind: "landed"; readonly err: RpcTransactionError | null }
  | { readonly kind: "dropped"; readonly err: RpcTransactionError }
  | { readonly kind: "refused"; readonly reason: "signature" }
  | { readonly kind: "refused"; readonly reason: "simulation"; readonly simulation: Simulation };

const SIGNATURE_REFUSED: SendOutcome = { kind: "refused", reason: "signature" };

export interface LedgerParts {
  readonly svm: LiteSVM;
  readonly history: HistoryIndex;
  readonly log: EventLog;
  readonly snapshots: SnapshotStore;
  readonly anchors: ClockAnchor[];
  readonly genesis: GenesisInfo;
  readonly genesisHashBytes: Uint8Array;
  readonly faucet: Faucet;
  /** The key of the ledger's durable-mark records (`durableMarkKey`). */
  readonly durableMarkKey: Uint8Array;
  readonly snapshotEvery: number;
  readonly logger: Logger;
}

/**
 * The event log could not be written; the ledger takes no more transactions until restarted.
 * `outcome` says what became of the transaction refused: "unknown" for one whose record was being
 * written or synced when the write failed (a restart applies it if its record reached the disk, so
 * its signature tells after the restart), "not applied" for one sent after the failure, which the
 * ledger refused without running it, or whose record it did not write. When another process took
 * the data folder over, that process is the ledger now: a restart of this one would be refused.
 */
export class LedgerWriteError extends Error {
  override readonly name = "LedgerWriteError";
  constructor(
    cause: Error,
    readonly outcome: "unknown" | "not applied",
  ) {
    super(
      cause instanceof DataDirTakenOverError
        ? `${cause.message}. This transaction was not applied: send it to the ledger that has the folder now`
        : outcome === "unknown"
          ? `the ledger could not write its event log (${cause.message}): whether this transaction ` +
            "landed is known only after a restart, which applies it if its record reached the disk; " +
            "look up its signature then. The ledger refuses further transactions until it is restarted"
          : `the ledger refuses transactions since it could not write its event log (${cause.message}); ` +
            "this one was not applied. Restart the ledger",
      { cause },
    );
  }
}

/** Owners of accounts that are not accounts themselves. */
const NATIVE_LOADER = "NativeLoader1111111111111111111111111111111" as Address;
/** The owner of the sysvar accounts. */
export const SYSVAR_OWNER = "Sysvar1111111111111111111111111111111111111" as Address;
const FEATURE_OWNER = "Feature111111111111111111111111111111111111" as Address;

const nothingRan = (err: RpcTransactionError): Simulation => ({
  err,
  logMessages: [],
  computeUnitsConsumed: 0n,
  innerInstructions: [],
  returnData: null,
  loadedAddresses: { writable: [], readonly: [] },
  postAccounts: new Map(),
});

/** A preflight failure as the simulation would have described it: the same single execution. */
const simulationOf = (execution: Execution): Simulation => ({
  err: execution.meta.err,
  logMessages: execution.meta.logMessages,
  computeUnitsConsumed: execution.meta.computeUnitsConsumed,
  innerInstructions: execution.meta.innerInstructions,
  returnData: execution.meta.returnData,
  loadedAddresses: execution.meta.loadedAddresses,
  postAccounts: new Map(),
});

export class Ledger {
  readonly genesis: GenesisInfo;
  readonly history: HistoryIndex;
  readonly transactionLanded: Signal<LandedTransaction>;
  readonly slotStarted: Signal<SlotInfo>;

  private readonly svm: LiteSVM;
  private readonly log: EventLog;
  private readonly snapshots: SnapshotStore;
  private readonly clock: SlotClock;
  private readonly faucet: Faucet;
  private readonly snapshotEvery: number;
  private readonly logger: Logger;
  private appliedClock: BlockClock | undefined;
  private readonly slotHashes = new SlotHashesWindow((slot) => this.clock.blockhashes.blockhashOf(slot));
  private readonly commits: GroupCommit;
  /** Signatures executed and appended, waiting for the sync that publishes them. */
  private readonly unpublished = new Set<string>();
  private transactionsSinceSnapshot = 0;
  private closed = false;
  private readonly durableMarkKey: Uint8Array;
  /** The `end` of the last durable-mark record appended. */
  private markedDurableEnd = 0;
  private writeFailure: Error | undefined;

  constructor(parts: LedgerParts) {
    this.svm = parts.svm;
    this.history = parts.history;
    this.log = parts.log;
    this.snapshots = parts.snapshots;
    this.genesis = parts.genesis;
    this.faucet = parts.faucet;
    this.snapshotEvery = parts.snapshotEvery;
    this.durableMarkKey = parts.durableMarkKey;
    this.logger = parts.logger;
    const onListenerError = (error: unknown): void =>
      this.logger.error("notification listener failed", { reason: String(error) });
    this.transactionLanded = new Signal(onListenerError);
    this.clock = new SlotClock(
      parts.anchors,
      parts.genesisHashBytes,
      (clock) => this.applyClock(clock),
      onListenerError,
    );
    this.slotStarted = this.clock.slotStarted;
    this.commits = new GroupCommit(this.log, {
      onSyncFailure: (error) => this.refuseFurtherWrites(error),
      beforeSync: () => this.markDurable(),
      betweenBatches: () => {
        if (this.transactionsSinceSnapshot >= this.snapshotEvery && !this.closed) this.snapshot();
      },
    });
  }

  get programId(): Address {
    return this.genesis.programId;
  }

  get faucetAddress(): Address {
    return this.faucet.address;
  }

  // ---------------------------------------------------------------------------------------------
  // Time

  /** The slot the wall clock is in (announcing any slot that started since the last call). */
  currentSlot(now = Date.now()): bigint {
    return this.clock.current(now);
  }

  /** Starts a new session: pins the first slot after everything the last session could have shown. */
  startSession(slotMs: number, now = Date.now()): ClockAnchor {
    const anchor = this.clock.nextSessionAnchor(slotMs, this.history.latestSlot, now);
    this.log.append(encodeLogRecord({ kind: "clock-anchor", anchor }));
    this.clock.addAnchor(anchor);
    return anchor;
  }

  /** Takes an anchor read from the log during replay. */
  addAnchor(anchor: ClockAnchor): void {
    this.clock.addAnchor(anchor);
  }

  startTicking(slotMs: number): void {
    this.clock.startTicking(slotMs);
  }

  /** Unix seconds at which `slot` started, or undefined for a slot that has not come yet. */
  blockTime(slot: bigint): bigint | undefined {
    if (slot > this.currentSlot()) return undefined;
    return this.history.blockTimeOfSlot(slot) ?? this.clock.slotStartSeconds(slot);
  }

  private applyClock(clock: BlockClock): void {
    const current = this.appliedClock;
    if (current?.slot === clock.slot && current.unixTimestamp === clock.unixTimestamp) return;
    setSvmClock(this.svm, clock);
    this.svm.setSlotHashes(this.slotHashes.entriesAt(clock.slot));
    this.appliedClock = clock;
  }

  // ---------------------------------------------------------------------------------------------
  // Blockhashes

  latestBlockhash(): { blockhash: string; lastValidBlockHeight: bigint; slot: bigint } {
    const slot = this.currentSlot();
    return {
      blockhash: this.clock.blockhashes.blockhashOf(slot),
      lastValidBlockHeight: slot + MAX_PROCESSING_AGE,
      slot,
    };
  }

  isBlockhashValid(blockhash: string): boolean {
    this.currentSlot();
    return this.clock.blockhashes.isValid(blockhash);
  }

  blockhashOf(slot: bigint): string {
    return this.clock.blockhashes.blockhashOf(slot);
  }

  // ---------------------------------------------------------------------------------------------
  // Transactions

  verifySignatures(transaction: WireTransaction): boolean {
    return verifyTransactionSignatures(transaction);
  }

  simulate(
    transaction: WireTransaction,
    options: { sigVerify: boolean; replaceRecentBlockhash: boolean },
  ): Simulation {
    this.currentSlot();
    if (!options.replaceRecentBlockhash && !this.clock.blockhashes.isValid(transaction.recentBlockhash)) {
      return nothingRan("BlockhashNotFound");
    }
    return simulateTransaction(this.svm, transaction, { sigVerify: options.sigVerify });
  }

  /** Resolves once the SVM holds nothing that is not on disk yet (at once when it holds nothing). */
  settled(): Promise<void> {
    return this.commits.settled();
  }

  /**
   * Sends a transaction as sendTransaction does. With `preflight`, one that would not succeed is
   * refused and changes nothing; without, it lands as failed or is dropped (unknown or expired
   * blockhash, already processed, fee not payable, bad signature), as a validator drops it. A
   * landed transaction is on disk, indexed and announced before this resolves; transactions sent
   * meanwhile share one fdatasync (group commit).
   */
  send(transaction: WireTransaction, options: { preflight: boolean }): Promise<SendOutcome> {
    if (this.writeFailure !== undefined)
      return Promise.reject(new LedgerWriteError(this.writeFailure, "not applied"));
    return this.commits.submit(() => this.executeStep(transaction, options.preflight));
  }

  /** A transaction landed or waiting in the batch being synced. */
  private isKnown(signature: string): boolean {
    return this.history.has(signature) || this.unpublished.has(signature);
  }

  /** Executes once; a preflight failure is reverted rather than simulated first. */
  private executeStep(transaction: WireTransaction, preflight: boolean): BatchStep<SendOutcome> {
    if (this.writeFailure !== undefined) throw new LedgerWriteError(this.writeFailure, "not applied");
    const slot = this.currentSlot();
    const unusable: RpcTransactionError | undefined = !this.clock.blockhashes.isValid(
      transaction.recentBlockhash,
    )
      ? "BlockhashNotFound"
      : this.isKnown(transaction.signature)
        ? "AlreadyProcessed"
        : undefined;
    if (unusable !== undefined) {
      // A validator checks signatures before the blockhash: the rare refusal says which failed.
      if (preflight && !verifyTransactionSignatures(transaction)) return { outcome: SIGNATURE_REFUSED };
      return {
        outcome: preflight
          ? { kind: "refused", reason: "simulation", simulation: nothingRan(unusable) }
          : this.dropped(transaction, unusable),
      };
    }
    const clock = this.clock.blockClock(slot);
    this.applyClock(clock);
    // The SVM checks the signatures (faster than node:crypto); a bad one changes nothing.
    const execution = executeTransaction(this.svm, transaction, { sigVerify: true });
    if (!execution.landed && execution.meta.err === "SignatureFailure") {
      return { outcome: preflight ? SIGNATURE_REFUSED : this.dropped(transaction, "SignatureFailure") };
    }
    if (preflight && execution.meta.err !== null) {
      revertFailedExecution(this.svm, transaction, execution);
      return { outcome: { kind: "refused", reason: "simulation", simulation: simulationOf(execution) } };
    }
    if (!execution.landed)
      return { outcome: this.dropped(transaction, execution.meta.err ?? "SanitizeFailure") };
    const entry = this.append(transaction, clock, execution);
    this.unpublished.add(entry.signature);
    return {
      outcome: { kind: "landed", err: entry.err },
      publish: () => {
        this.unpublished.delete(entry.signature);
        this.index(entry);
        this.logger.debug("transaction landed", {
          signature: entry.signature,
          slot: entry.slot,
          err: JSON.stringify(entry.err),
        });
        this.transactionLanded.emit({
          signature: entry.signature,
          slot: entry.slot,
          err: entry.err,
          logs: execution.meta.logMessages,
          accountKeys: entry.accountKeys,
        });
      },
    };
  }

  private dropped(transaction: WireTransaction, err: RpcTransactionError): SendOutcome {
    this.logger.debug("transaction dropped", { signature: transaction.signature, err: JSON.stringify(err) });
    return { kind: "dropped", err };
  }

  /** Genesis: runs in a fixed slot, must succeed, and is made durable once at the end. */
  executeGenesisTransaction(bytes: Uint8Array, slot: bigint, description: string): void {
    const transaction = parseWireTransaction(bytes);
    const clock = this.clock.blockClock(slot);
    this.applyClock(clock);
    const execution = executeTransaction(this.svm, transaction);
    if (execution.meta.err !== null || !execution.landed) {
      throw new Error(
        `genesis failed at "${description}": ${JSON.stringify(execution.meta.err)}\n${execution.meta.logMessages.join("\n")}`,
      );
    }
    this.index(this.append(transaction, clock, execution));
  }

  /**
   * Re-executes a logged transaction with its recorded clock; the SVM is deterministic, so this
   * rebuilds exactly the state the record left. The history entry comes from the record itself.
   */
  replay(record: TransactionRecord, position: LogPosition): void {
    const transaction = parseWireTransaction(record.transaction);
    this.applyClock(record.clock);
    const execution = executeTransaction(this.svm, transaction);
    if (!execution.landed || JSON.stringify(execution.meta.err) !== JSON.stringify(record.meta.err)) {
      this.logger.error("replay diverged from the recorded outcome", {
        signature: transaction.signature,
        recorded: JSON.stringify(record.meta.err),
        replayed: JSON.stringify(execution.meta.err),
      });
    }
    this.clock.reached(record.clock.slot);
    this.index(this.entryFor(transaction, record.clock, record.meta.err, execution.accountKeys, position));
  }

  /** Writes the record (not yet durable: the caller syncs) and returns its history entry. */
  private append(transaction: WireTransaction, clock: BlockClock, execution: Execution): HistoryEntry {
    let position: LogPosition;
    try {
      position = this.log.append(
        encodeLogRecord({ kind: "transaction", clock, transaction: transaction.bytes, meta: execution.meta }),
        { durable: false },
      );
    } catch (error) {
      // Taken over: checked before anything was written, so the record is not in the log.
      throw this.refuseFurtherWrites(
        error as Error,
        error instanceof DataDirTakenOverError ? "not applied" : "unknown",
      );
    }
    return this.entryFor(transaction, clock, execution.meta.err, execution.accountKeys, position);
  }

  /**
   * Records, within the batch about to be synced, how far the log was already on disk: recovery
   * then knows a damaged record before that point held confirmed transactions.
   */
  private markDurable(): void {
    const end = this.log.durableEnd;
    if (end <= this.markedDurableEnd) return;
    this.log.append(encodeLogRecord({ kind: "durable-mark", key: this.durableMarkKey, end }), {
      durable: false,
    });
    this.markedDurableEnd = end;
  }

  /**
   * The SVM already applied transactions the disk may not have: accepting more would build on
   * state that a restart cannot reproduce.
   */
  private refuseFurtherWrites(
    error: Error,
    outcome: LedgerWriteError["outcome"] = "unknown",
  ): LedgerWriteError {
    this.writeFailure ??= error;
    this.logger.error("cannot write the event log; refusing further transactions", {
      reason: error.message,
    });
    return new LedgerWriteError(error, outcome);
  }

  private index(entry: HistoryEntry): void {
    this.history.add(entry);
    this.transactionsSinceSnapshot += 1;
  }

  private entryFor(
    transaction: WireTransaction,
    clock: BlockClock,
    err: RpcTransactionError | null,
    accountKeys: readonly Address[],
    position: LogPosition,
  ): HistoryEntry {
    return {
      signature: transaction.signature,
      slot: clock.slot,
      blockTime: clock.unixTimestamp,
      err,
      memo: extractMemo(transaction),
      position,
      accountKeys,
      computeUnitPrice: readComputeBudget(transaction).computeUnitPrice,
    };
  }

  /**
   * Airdrops are faucet transfers. Two identical requests in one slot would be the same
   * transaction, so each takes the newest blockhash that gives it a signature not seen yet.
   */
  requestAirdrop(recipient: Address, lamports: bigint): Promise<{ signature: string } | { error: string }> {
    if (this.writeFailure !== undefined)
      return Promise.reject(new LedgerWriteError(this.writeFailure, "not applied"));
    return this.commits.submit(() => this.airdropStep(recipient, lamports));
  }

  private airdropStep(
    recipient: Address,
    lamports: bigint,
  ): BatchStep<{ signature: string } | { error: string }> {
    const slot = this.currentSlot();
    const oldest = slot > MAX_PROCESSING_AGE ? slot - MAX_PROCESSING_AGE : 0n;
    for (let s = slot; s >= oldest; s -= 1n) {
      let transaction: WireTransaction;
      try {
        transaction = parseWireTransaction(
          this.faucet.buildTransfer(recipient, lamports, this.clock.blockhashes.blockhashOf(s)),
        );
      } catch (error) {
        // A transfer to the faucet itself or to the System Program names one account twice.
        if (!(error instanceof MalformedTransactionError)) throw error;
        return { outcome: { error: `the faucet cannot send to ${recipient}: ${error.message}` } };
      }
      if (this.isKnown(transaction.signature)) continue;
      const step = this.executeStep(transaction, true);
      if (step.outcome.kind === "refused") {
        const logs =
          step.outcome.reason === "simulation" ? step.outcome.simulation.logMessages.join(" | ") : "";
        return { outcome: { error: `the faucet could not send ${lamports} lamports: ${logs}` } };
      }
      return { outcome: { signature: transaction.signature }, publish: step.publish };
    }
    return { outcome: { error: "too many identical airdrops in the last 150 slots" } };
  }

  // ---------------------------------------------------------------------------------------------
  // History

  transaction(signature: string): { entry: HistoryEntry; record: TransactionRecord } | undefined {
    const entry = this.history.get(signature);
    if (entry === undefined) return undefined;
    const record = decodeLogRecord(this.log.read(entry.position));
    if (record.kind !== "transaction") throw new Error(`the log record of ${signature} is not a transaction`);
    return { entry, record };
  }

  signaturesForAddress(address: Address, query: SignatureQuery): HistoryEntry[] {
    return this.history.signaturesForAddress(address, query);
  }

  // ---------------------------------------------------------------------------------------------
  // Accounts

  account(address: Address): EncodedAccount | undefined {
    const account = this.svm.getAccount(address);
    return account.exists ? account : undefined;
  }

  programAccounts(owner: Address): EncodedAccount[] {
    return this.svm.getProgramAccounts(owner);
  }

  /**
   * The lamports of every account. Each account is found through its owner: the owners that are
   * not accounts themselves (the native loader, sysvars, features) and then every program found,
   * in turn (each executable account may own accounts).
   */
  totalLamports(): bigint {
    const owners = [NATIVE_LOADER, SYSVAR_OWNER, FEATURE_OWNER];
    const seen = new Set<string>(owners);
    let total = 0n;
    for (let next = owners.pop(); next !== undefined; next = owners.pop()) {
      for (const account of this.svm.getProgramAccounts(next)) {
        total += account.lamports;
        if (account.executable && !seen.has(account.address)) {
          seen.add(account.address);
          owners.push(account.address);
        }
      }
    }
    return total;
  }

  balance(address: Address): bigint {
    return this.svm.getBalance(address) ?? 0n;
  }

  rentExemptMinimum(size: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(size));
  }

  // ---------------------------------------------------------------------------------------------
  // Snapshots and shutdown

  /**
   * Writes a snapshot of everything up to the current end of the log; none once a write of the log
   * failed, since the SVM then holds transactions the disk may not. A snapshot that cannot be
   * written is logged, unless `required` (genesis's, which recovery starts from): then it throws.
   */
  snapshot({ required = false }: { readonly required?: boolean } = {}): void {
    if (this.writeFailure !== undefined) return;
    const started = performance.now();
    let path: string;
    try {
      path = this.snapshots.write({
        logOffset: this.log.end,
        anchors: this.clock.allAnchors,
        svmState: this.svm.toBytes(),
        history: this.history.serialize(),
      });
    } catch (error) {
      // Another process owns the folder now: nothing more is written to it.
      if (error instanceof DataDirTakenOverError) {
        this.refuseFurtherWrites(error);
        return;
      }
      // The first snapshot (genesis's) is what recovery starts from: it must be written.
      if (required) throw error;
      // A later one: the log holds every transaction since the last snapshot, so without this one a
      // restart replays more of it. The next is tried after as many transactions again (a full
      // disk, say, may have room then).
      this.transactionsSinceSnapshot = 0;
      this.logger.error("snapshot not written; the log still holds every transaction", {
        reason: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    this.transactionsSinceSnapshot = 0;
    this.logger.info("snapshot written", {
      path,
      transactions: this.history.size,
      ms: Math.round(performance.now() - started),
    });
  }

  /** Why the ledger refuses transactions since a write to its data folder failed, if it does. */
  get unhealthy(): string | undefined {
    return this.writeFailure === undefined
      ? undefined
      : `a write to its data folder failed (${this.writeFailure.message}): it refuses transactions until restarted`;
  }

  get hasUnsnapshottedTransactions(): boolean {
    return this.transactionsSinceSnapshot > 0;
  }

  /** Stops the clock, snapshots what the last snapshot lacks, closes the log. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.commits.drain();
    this.clock.stopTicking();
    if (this.transactionsSinceSnapshot > 0) this.snapshot();
    this.log.close();
  }
}
