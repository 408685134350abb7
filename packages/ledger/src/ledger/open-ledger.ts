/**
 * Opens the ledger in a data directory: runs genesis for a new (or half-created) directory, or
 * recovers an existing one: load the newest valid snapshot, replay the event log after it with
 * the recorded clocks, cut off a torn last record; refuse a log shorter than the snapshot says.
 * Then starts a new clock session.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";

import type { Address } from "@solana/kit";
import { lamports } from "@solana/kit";

import { assertProgramExists, type LedgerConfig } from "../config.js";
import { PROGRAM_KEYPAIR_PATH } from "../package-files.js";
import { fromBase58, toBase58 } from "../encoding.js";
import type { Logger } from "../logger.js";
import { fsyncDirectory, writeFileAtomically } from "../storage/atomic-file.js";
import {
  dataDirPaths,
  type DataDirTakenOverError,
  ensureDataDir,
  lockDataDir,
  removeLedgerFiles,
  type DataDirPaths,
} from "../storage/data-dir.js";
import { EventLog } from "../storage/event-log.js";
import { HistoryIndex } from "../storage/history-index.js";
import {
  decodeLogRecord,
  DURABLE_MARK_LENGTH,
  durableMarkKey,
  durableMarkPrefix,
  encodeLogRecord,
} from "../storage/log-record.js";
import { SnapshotStore } from "../storage/snapshot-store.js";
import { NATIVE_MINT, nativeMintData, TOKEN_PROGRAM } from "../token/token-state.js";
import { Faucet } from "./faucet.js";
import { FAUCET_LAMPORTS, runGenesis } from "./genesis.js";
import { generateKeypairFile, readKeypairFile } from "./keypair-file.js";
import { Ledger, type GenesisInfo } from "./ledger.js";
import type { ClockAnchor } from "./ledger-time.js";
import { createSvm, restoreSvm } from "./svm-factory.js";

export interface OpenedLedger {
  readonly ledger: Ledger;
  /** Closes the ledger (final snapshot, log closed) and releases the directory lock. */
  readonly close: () => void;
  readonly startup: StartupReport;
}

export interface StartupReport {
  readonly kind: "genesis" | "recovered";
  readonly replayedTransactions: number;
  readonly replayMs: number;
  readonly totalMs: number;
  readonly tornBytes: number;
}

/**
 * The event log ends before the offset the newest snapshot says it covers: records the ledger had
 * confirmed are gone (a disk that lost its tail, a file replaced by an older copy). Opening it
 * anyway would append new records below the snapshot's offset, where the next recovery never
 * looks, and serve history entries that point past the end of the file.
 */
export class LedgerLogTruncatedError extends Error {
  override readonly name = "LedgerLogTruncatedError";
  constructor(
    readonly logPath: string,
    readonly logEnd: number,
    readonly snapshotPath: string,
    readonly snapshotOffset: number,
  ) {
    super(
      `${logPath} ends at byte ${logEnd}, but the snapshot ${snapshotPath} covers it up to byte ` +
        `${snapshotOffset}: ${snapshotOffset - logEnd} bytes of confirmed transactions are missing from the log ` +
        "(the disk lost its tail, or the file was replaced by an older copy). The ledger does not start on it, " +
        "so that nothing more is lost: restore ledger.log from a backup and start again, or start a new, empty " +
        "ledger with --reset (this erases every transaction).",
    );
  }
}

/**
 * The folder holds a ledger's log but not its genesis.json, and no genesis was under way: the file
 * was removed or lost. Starting a new genesis would erase every transaction, so the ledger refuses.
 */
export class LedgerGenesisMissingError extends Error {
  override readonly name = "LedgerGenesisMissingError";
  constructor(readonly dataDir: string) {
    super(
      `${dataDir} holds a ledger (ledger.log, snapshots) but not its genesis.json, which was removed or lost: ` +
        "the ledger does not start on it, so that nothing is erased. Restore genesis.json from a backup and " +
        "start again, or start a new, empty ledger with --reset (this erases every transaction; it is also the " +
        "way out for a folder whose first genesis, by a version without genesis.pending, never finished).",
    );
  }
}

/**
 * A record in the middle of the log fails its checksum, and a later record shows the log had been on
 * disk past it: not a write a crash cut short, but damage to transactions the ledger confirmed.
 */
export class LedgerLogDamagedError extends Error {
  override readonly name = "LedgerLogDamagedError";
  constructor(
    readonly logPath: string,
    readonly damagedAt: number,
    readonly durableEnd: number,
  ) {
    super(
      `${logPath} is damaged at byte ${damagedAt}: the record there fails its checksum, yet a later record shows ` +
        `the log was on disk up to byte ${durableEnd}, so the damage is not a write cut short by a crash but ` +
        "covers transactions the ledger confirmed. The ledger does not start on it, so that nothing more is lost: " +
        "restore ledger.log from a backup and start again; or keep only the transactions before the damage by " +
        `cutting the file there (truncate -s ${damagedAt} ${logPath}); or start a new, empty ledger with --reset ` +
        "(this erases every transaction).",
    );
  }
}

/**
 * How far the log was on disk, as the durable marks after `damagedAt` tell it (0 when none is
 * found). A mark is believed only where it could have been written: at or after the end it names.
 */
function durableEndAfter(log: EventLog, damagedAt: number, key: Uint8Array): number {
  let highest = 0;
  for (const frame of log.findFrames(damagedAt, durableMarkPrefix(key), DURABLE_MARK_LENGTH)) {
    const record = decodeLogRecord(frame.payload);
    if (record.kind === "durable-mark" && record.end <= frame.offset) highest = Math.max(highest, record.end);
  }
  return highest;
}

function readGenesisInfo(paths: DataDirPaths): GenesisInfo {
  const info = JSON.parse(readFileSync(paths.genesis, "utf8")) as GenesisInfo;
  if (typeof info.programId !== "string" || typeof info.genesisHash !== "string") {
    throw new Error(`${paths.genesis} is not a ledger genesis file`);
  }
  return info;
}

async function createGenesis(
  config: LedgerConfig,
  paths: DataDirPaths,
  assertOwned: () => void,
  logger: Logger,
): Promise<Ledger> {
  assertProgramExists(config);
  // Until genesis.json is written, this says that the files beside it are a genesis under way.
  writeFileAtomically(paths.genesisPending, [new Uint8Array()]);
  const programBytes = new Uint8Array(readFileSync(config.programPath));
  const programKeypair = readKeypairFile(PROGRAM_KEYPAIR_PATH);
  const faucetKeypair = generateKeypairFile(paths.faucetKeypair);
  const genesisHashBytes = new Uint8Array(randomBytes(32));
  const genesis: GenesisInfo = {
    programId: programKeypair.address,
    genesisHash: toBase58(genesisHashBytes),
    faucet: faucetKeypair.address,
    createdAt: new Date().toISOString(),
  };

  const svm = createSvm();
  svm.setAccount({
    address: faucetKeypair.address,
    lamports: lamports(FAUCET_LAMPORTS),
    programAddress: "11111111111111111111111111111111" as Address,
    executable: false,
    data: new Uint8Array(),
    space: 0n,
  });
  const nativeMint = nativeMintData();
  svm.setAccount({
    address: NATIVE_MINT,
    lamports: lamports(svm.minimumBalanceForRentExemption(BigInt(nativeMint.length))),
    programAddress: TOKEN_PROGRAM,
    executable: false,
    data: nativeMint,
    space: BigInt(nativeMint.length),
  });
  const log = EventLog.open(paths.eventLog, { assertOwned });
  const genesisAnchor: ClockAnchor = { slot: 0n, unixMs: Date.now(), slotMs: config.slotMs };
  log.append(encodeLogRecord({ kind: "clock-anchor", anchor: genesisAnchor }), { durable: false });
  const ledger = new Ledger({
    svm,
    history: new HistoryIndex(),
    log,
    snapshots: new SnapshotStore(paths.snapshots, logger, assertOwned),
    anchors: [genesisAnchor],
    genesis,
    genesisHashBytes,
    faucet: new Faucet(faucetKeypair.address, faucetKeypair.privateKey),
    durableMarkKey: durableMarkKey(faucetKeypair.bytes),
    snapshotEvery: config.snapshotEvery,
    logger,
  });
  const result = await runGenesis(ledger, { programBytes, programKeypair, faucetKeypair });
  log.flush();
  fsyncDirectory(paths.root);
  ledger.snapshot({ required: true });
  // Written last: its presence says genesis is complete.
  writeFileAtomically(paths.genesis, [new TextEncoder().encode(`${JSON.stringify(genesis, null, 2)}\n`)]);
  rmSync(paths.genesisPending);
  fsyncDirectory(paths.root);
  logger.info("genesis complete", {
    programId: result.programId,
    programData: result.programData,
    transactions: result.transactionCount,
  });
  return ledger;
}

function recover(
  config: LedgerConfig,
  paths: DataDirPaths,
  assertOwned: () => void,
  logger: Logger,
): { ledger: Ledger; replayed: number; replayMs: number; tornBytes: number } {
  const genesis = readGenesisInfo(paths);
  const faucetKeypair = readKeypairFile(paths.faucetKeypair);
  const markKey = durableMarkKey(faucetKeypair.bytes);
  const snapshots = new SnapshotStore(paths.snapshots, logger, assertOwned);
  const snapshot = snapshots.loadNewest();
  if (snapshot === undefined) {
    throw new Error(
      `no readable snapshot in ${paths.snapshots}: the ledger cannot be recovered (start again with --reset)`,
    );
  }
  const log = EventLog.open(paths.eventLog, { assertOwned });
  if (log.end < snapshot.logOffset) {
    log.close();
    throw new LedgerLogTruncatedError(paths.eventLog, log.end, snapshot.path, snapshot.logOffset);
  }
  const scan = log.scan(snapshot.logOffset);
  if (scan.tornBytes > 0) {
    const durableEnd = durableEndAfter(log, scan.end, markKey);
    if (durableEnd > scan.end) {
      log.close();
      throw new LedgerLogDamagedError(paths.eventLog, scan.end, durableEnd);
    }
    logger.warn("cutting a torn record off the end of the event log", {
      bytes: scan.tornBytes,
      at: scan.end,
    });
    log.truncate(scan.end);
  }
  const ledger = new Ledger({
    svm: restoreSvm(snapshot.svmState),
    history: HistoryIndex.deserialize(snapshot.history),
    log,
    snapshots,
    anchors: [...snapshot.anchors],
    genesis,
    genesisHashBytes: fromBase58(genesis.genesisHash),
    faucet: new Faucet(faucetKeypair.address, faucetKeypair.privateKey),
    durableMarkKey: markKey,
    snapshotEvery: config.snapshotEvery,
    logger,
  });
  const started = performance.now();
  let replayed = 0;
  for (const frame of scan.frames) {
    const record = decodeLogRecord(frame.payload);
    if (record.kind === "clock-anchor") {
      ledger.addAnchor(record.anchor);
    } else if (record.kind === "transaction") {
      ledger.replay(record, frame);
      replayed += 1;
    }
  }
  return { ledger, replayed, replayMs: performance.now() - started, tornBytes: scan.tornBytes };
}

export interface OpenLedgerOptions {
  /**
   * Called once another process has taken the data folder over (this one was paused past its
   * lock's renewals): the ledger already writes nothing more, and what it serves is no longer
   * the folder's.
   */
  readonly onTakenOver?: (error: DataDirTakenOverError) => void;
}

export async function openLedger(
  config: LedgerConfig,
  logger: Logger,
  { onTakenOver }: OpenLedgerOptions = {},
): Promise<OpenedLedger> {
  const started = performance.now();
  const paths = dataDirPaths(config.dataDir);
  ensureDataDir(paths);
  const lock = await lockDataDir(paths, { onTakenOver });
  try {
    if (config.reset) {
      logger.info("resetting the ledger", { dataDir: paths.root });
      removeLedgerFiles(paths);
      ensureDataDir(paths);
    } else if (existsSync(paths.genesis)) {
      // (a genesis that died after genesis.json, before removing its mark, had finished)
      rmSync(paths.genesisPending, { force: true });
    } else if (existsSync(paths.eventLog)) {
      if (!existsSync(paths.genesisPending)) throw new LedgerGenesisMissingError(paths.root);
      logger.warn("the previous genesis did not finish; starting again", { dataDir: paths.root });
      removeLedgerFiles(paths);
      ensureDataDir(paths);
    }
    let ledger: Ledger;
    let report: Omit<StartupReport, "totalMs">;
    if (existsSync(paths.genesis)) {
      const recovered = recover(config, paths, lock.assertOwned, logger);
      ledger = recovered.ledger;
      report = {
        kind: "recovered",
        replayedTransactions: recovered.replayed,
        replayMs: recovered.replayMs,
        tornBytes: recovered.tornBytes,
      };
      if (recovered.replayed > 0) ledger.snapshot();
    } else {
      ledger = await createGenesis(config, paths, lock.assertOwned, logger);
      report = { kind: "genesis", replayedTransactions: 0, replayMs: 0, tornBytes: 0 };
    }
    ledger.startSession(config.slotMs);
    const startup: StartupReport = { ...report, totalMs: performance.now() - started };
    logger.info(report.kind === "genesis" ? "ledger created" : "ledger recovered", {
      transactions: ledger.history.size,
      replayed: startup.replayedTransactions,
      replayMs: Math.round(startup.replayMs),
      startupMs: Math.round(startup.totalMs),
    });
    return {
      ledger,
      startup,
      close: () => {
        try {
          ledger.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}
