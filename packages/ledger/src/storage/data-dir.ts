/**
 * The files of a ledger directory, its single-process lock, and `--reset`.
 *
 *   genesis.json           what genesis created (program id, genesis hash, faucet); written last,
 *                          so its absence means genesis did not finish
 *   faucet-keypair.json    the faucet (and upgrade authority) keypair, Solana CLI format
 *   ledger.log             the event log
 *   snapshots/             snapshot-<log offset>.bin
 *   lock/                  lock.<n>: the process that has the ledger open (`@abas/dir-lock`)
 *
 * The faucet keypair is a secret: the directories are 0700 and every file 0600 (PRIVATE_FILE_MODE).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

import { DirectoryLockedError, isProcessAlive, lockDirectory, type DirectoryLock } from "@abas/dir-lock";

export interface DataDirPaths {
  readonly root: string;
  readonly genesis: string;
  readonly faucetKeypair: string;
  readonly eventLog: string;
  readonly snapshots: string;
  readonly lock: string;
  /** The lock file of versions before `lock/`: the pid alone. */
  readonly legacyLock: string;
}

export function dataDirPaths(root: string): DataDirPaths {
  return {
    root,
    genesis: join(root, "genesis.json"),
    faucetKeypair: join(root, "faucet-keypair.json"),
    eventLog: join(root, "ledger.log"),
    snapshots: join(root, "snapshots"),
    lock: join(root, "lock"),
    legacyLock: join(root, "ledger.lock"),
  };
}

/** Files the ledger creates: readable by their owner only. */
export const PRIVATE_FILE_MODE = 0o600;
const PRIVATE_DIRECTORY_MODE = 0o700;

/** Creates the directories, and makes them and the ledger's files private (older versions left them 0644). */
export function ensureDataDir(paths: DataDirPaths): void {
  for (const directory of [paths.snapshots, paths.lock]) {
    mkdirSync(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  }
  for (const directory of [paths.root, paths.snapshots, paths.lock]) {
    chmodSync(directory, PRIVATE_DIRECTORY_MODE);
  }
  for (const file of [paths.genesis, paths.faucetKeypair, paths.eventLog]) {
    if (existsSync(file)) chmodSync(file, PRIVATE_FILE_MODE);
  }
}

/** Removes the ledger's own files only, never anything else a user keeps in the directory. */
export function removeLedgerFiles(paths: DataDirPaths): void {
  for (const path of [paths.genesis, paths.faucetKeypair, paths.eventLog]) rmSync(path, { force: true });
  rmSync(paths.snapshots, { recursive: true, force: true });
}

export class DataDirLockedError extends Error {
  override readonly name = "DataDirLockedError";
}

function alreadyOpen(paths: DataDirPaths, pid: number): DataDirLockedError {
  return new DataDirLockedError(`the ledger in ${paths.root} is already open in process ${pid}`);
}

/**
 * Takes the directory for this process, which `ensureDataDir` made: one process at a time, however
 * many start at once; a lock left by a process that no longer runs (kill -9) is taken over. The
 * returned function gives it up.
 */
export async function lockDataDir(paths: DataDirPaths): Promise<() => void> {
  let lock: DirectoryLock;
  try {
    lock = await lockDirectory(paths.lock);
  } catch (error) {
    throw error instanceof DirectoryLockedError ? alreadyOpen(paths, error.pid) : error;
  }
  // A ledger of an earlier version, which wrote its pid alone, may still have the folder open.
  const legacyPid = existsSync(paths.legacyLock)
    ? Number(readFileSync(paths.legacyLock, "utf8").trim())
    : undefined;
  if (
    legacyPid !== undefined &&
    Number.isSafeInteger(legacyPid) &&
    legacyPid > 0 &&
    legacyPid !== process.pid &&
    isProcessAlive(legacyPid)
  ) {
    lock.release();
    throw alreadyOpen(paths, legacyPid);
  }
  rmSync(paths.legacyLock, { force: true });
  return () => lock.release();
}
