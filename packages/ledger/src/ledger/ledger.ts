/**
 * The ledger: the SVM, its clock, recent blockhashes, the transaction history and the event log,
 * behind the operations the RPC layer needs.
 *
 * Every state change happens synchronously inside one call (execute, append to the log, fsync,
 * index, notify), so no request can observe a transaction that is not yet on disk, and no two
 * transactions interleave.
 */
import type { Address, EncodedAccount } from "@solana/kit";
import type { LiteSVM } from "litesvm";

import type { Logger } from "../logger.js";
import type { EventLog, LogPosition } from "../storage/event-log.js";
import { HistoryIndex, type HistoryEntry, type SignatureQuery } from "../storage/history-index.js";
import { decodeLogRecord, encodeLogRecord, type TransactionRecord } from "../storage/log-record.js";
import type { SnapshotStore } from "../storage/snapshot-store.js";
import { readComputeBudget } from "../transactions/fees.js";
import { extractMemo } from "../transactions/memo.js";
import { verifyTransactionSignatures } from "../transactions/signature-verification.js";
import type { RpcTransactionError } from "../transactions/transaction-error.js";
import { parseWireTransaction, type WireTransaction } from "../transactions/wire-transaction.js";
import { MAX_PROCESSING_AGE } from "./blockhash-window.js";
import {
  executeTransaction,
  simulateTransaction,
  type Execution,
  type Simulation,
} from "./execute-transaction.js";
import type { Faucet } from "./faucet.js";
import type { BlockClock, ClockAnchor } from "./ledger-time.js";
import { Signal } from "./signal.js";
import { SlotClock, type SlotInfo } from "./slot-clock.js";
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

/** Why the ledger refused a transaction before executing it, with what a validator reports. */
export type PreflightResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: "signature" }
  | { readonly ok: false; readonly reason: "simulation"; readonly simulation: Simulation };

export interface LedgerParts {
  readonly svm: LiteSVM;
  readonly history: HistoryIndex;
  readonly log: EventLog;
  readonly snapshots: SnapshotStore;
  readonly anchors: ClockAnchor[];
  readonly genesis: GenesisInfo;
  readonly genesisHashBytes: Uint8Array;
  readonly faucet: Faucet;
  readonly snapshotEvery: number;
  readonly logger: Logger;
}

/** The event log could not be written; the ledger takes no more transactions until restarted. */
export class LedgerWriteError extends Error {
  override readonly name = "LedgerWriteError";
  constructor(cause: Error) {
    super(`the ledger could not write its event log (${cause.message}); restart it`, { cause });
  }
}

const nothingRan = (err: RpcTransactionError): Simulation => ({
  err,
  logMessages: [],
  computeUnitsConsumed: 0n,
  innerInstructions: [],
  returnData: null,
  loadedAddresses: { writable: [], readonly: [] },
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
  private transactionsSinceSnapshot = 0;
  private snapshotScheduled = false;
  private closed = false;
  private writeFailure: Error | undefined;

  constructor(parts: LedgerParts) {
    this.svm = parts.svm;
    this.history = parts.history;
    this.log = parts.log;
    this.snapshots = parts.snapshots;
    this.genesis = parts.genesis;
    this.faucet = parts.faucet;
    this.snapshotEvery = parts.snapshotEvery;
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

  /** The checks of sendTransaction's preflight: signatures, blockhash, duplicates, simulation. */
  preflight(transaction: WireTransaction): PreflightResult {
    if (!verifyTransactionSignatures(transaction)) return { ok: false, reason: "signature" };
    this.currentSlot();
    if (!this.clock.blockhashes.isValid(transaction.recentBlockhash)) {
      return { ok: false, reason: "simulation", simulation: nothingRan("BlockhashNotFound") };
    }
    if (this.history.has(transaction.signature)) {
      return { ok: false, reason: "simulation", simulation: nothingRan("AlreadyProcessed") };
    }
    // Signatures were verified above; the SVM need not verify them again.
    const simulation = simulateTransaction(this.svm, transaction, { sigVerify: false });
    return simulation.err === null ? { ok: true } : { ok: false, reason: "simulation", simulation };
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

  /**
   * Executes the transaction in the current slot. When it lands it is on disk, indexed and
   * announced before this returns; otherwise (unknown or expired blockhash, already processed,
   * fee not payable, bad signature) it is dropped, as a validator drops it.
   */
  submit(transaction: WireTransaction): { landed: boolean; err: RpcTransactionError | null } {
    if (this.writeFailure !== undefined) throw new LedgerWriteError(this.writeFailure);
    const slot = this.currentSlot();
    if (!this.clock.blockhashes.isValid(transaction.recentBlockhash))
      return this.dropped(transaction, "BlockhashNotFound");
    if (this.history.has(transaction.signature)) return this.dropped(transaction, "AlreadyProcessed");
    const clock = this.clock.blockClock(slot);
    this.applyClock(clock);
    const execution = executeTransaction(this.svm, transaction);
    if (!execution.landed) return this.dropped(transaction, execution.meta.err ?? "SanitizeFailure");
    const entry = this.record(transaction, clock, execution, true);
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
    this.maybeSnapshot();
    return { landed: true, err: entry.err };
  }

  private dropped(
    transaction: WireTransaction,
    err: RpcTransactionError,
  ): { landed: false; err: RpcTransactionError } {
    this.logger.debug("transaction dropped", { signature: transaction.signature, err: JSON.stringify(err) });
    return { landed: false, err };
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
    this.record(transaction, clock, execution, false);
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
    this.history.add(
      this.entryFor(transaction, record.clock, record.meta.err, execution.accountKeys, position),
    );
    this.transactionsSinceSnapshot += 1;
  }

  private record(
    transaction: WireTransaction,
    clock: BlockClock,
    execution: Execution,
    durable: boolean,
  ): HistoryEntry {
    let position: LogPosition;
    try {
      position = this.log.append(
        encodeLogRecord({ kind: "transaction", clock, transaction: transaction.bytes, meta: execution.meta }),
        { durable },
      );
    } catch (error) {
      // The SVM already applied a transaction the disk does not have: accepting more would build
      // on state that a restart cannot reproduce.
      this.writeFailure = error as Error;
      this.logger.error("cannot write the event log; refusing further transactions", {
        reason: this.writeFailure.message,
      });
      throw new LedgerWriteError(this.writeFailure);
    }
    const entry = this.entryFor(transaction, clock, execution.meta.err, execution.accountKeys, position);
    this.history.add(entry);
    this.transactionsSinceSnapshot += 1;
    return entry;
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
  requestAirdrop(recipient: Address, lamports: bigint): { signature: string } | { error: string } {
    const slot = this.currentSlot();
    const oldest = slot > MAX_PROCESSING_AGE ? slot - MAX_PROCESSING_AGE : 0n;
    for (let s = slot; s >= oldest; s -= 1n) {
      const transaction = parseWireTransaction(
        this.faucet.buildTransfer(recipient, lamports, this.clock.blockhashes.blockhashOf(s)),
      );
      if (this.history.has(transaction.signature)) continue;
      const preflight = this.preflight(transaction);
      if (!preflight.ok) {
        const logs = preflight.reason === "simulation" ? preflight.simulation.logMessages.join(" | ") : "";
        return { error: `the faucet could not send ${lamports} lamports: ${logs}` };
      }
      this.submit(transaction);
      return { signature: transaction.signature };
    }
    return { error: "too many identical airdrops in the last 150 slots" };
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

  balance(address: Address): bigint {
    return this.svm.getBalance(address) ?? 0n;
  }

  rentExemptMinimum(size: number): bigint {
    return this.svm.minimumBalanceForRentExemption(BigInt(size));
  }

  // ---------------------------------------------------------------------------------------------
  // Snapshots and shutdown

  private maybeSnapshot(): void {
    if (this.transactionsSinceSnapshot < this.snapshotEvery || this.snapshotScheduled) return;
    this.snapshotScheduled = true;
    // After the current response has gone out.
    setImmediate(() => {
      this.snapshotScheduled = false;
      if (!this.closed) this.snapshot();
    });
  }

  /** Writes a snapshot of everything up to the current end of the log. */
  snapshot(): void {
    const started = performance.now();
    const path = this.snapshots.write({
      logOffset: this.log.end,
      anchors: this.clock.allAnchors,
      svmState: this.svm.toBytes(),
      history: this.history.serialize(),
    });
    this.transactionsSinceSnapshot = 0;
    this.logger.info("snapshot written", {
      path,
      transactions: this.history.size,
      ms: Math.round(performance.now() - started),
    });
  }

  get hasUnsnapshottedTransactions(): boolean {
    return this.transactionsSinceSnapshot > 0;
  }

  /** Stops the clock, snapshots what the last snapshot lacks, closes the log. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.clock.stopTicking();
    if (this.transactionsSinceSnapshot > 0) this.snapshot();
    this.log.close();
  }
}
