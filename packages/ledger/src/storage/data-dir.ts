/**
 * The files of a ledger directory, its single-process lock, and `--reset`.
 *
 *   genesis.json           what genesis created (program id, genesis hash, faucet); written last
 *   genesis.pending        present while genesis runs: a log without genesis.json beside it is a
 *                          genesis that did not finish, and without it a ledger that lost genesis.json
 *   faucet-keypair.json    the faucet (and upgrade authority) keypair, Solana CLI format
 *   ledger.log             the event log
 *   snapshots/             snapshot-<log offset>.bin
 *   lock/                  lock.<n>: the process that has the ledger open (`@abas/dir-lock`)
 *
 * The faucet keypair is a secret: the directories are 0700 and every file 0600 (PRIVATE_FILE_MODE).
 */
import { chmodSync, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";

import { DirectoryLockedError, lockDirectory, lockFileRemains, type DirectoryLock } from "@abas/dir-lock";

export interface DataDirPaths {
  readonly root: string;
  readonly genesis: string;
  /** Present while genesis runs. */
  readonly genesisPending: string;
  readonly faucetKeypair: string;
  readonly eventLog: string;
  readonly snapshots: string;
  readonly lock: string;
  /** The lock file of earlier versions, removed when the folder is locked. */
  readonly legacyLock: string;
}

export function dataDirPaths(root: string): DataDirPaths {
  return {
    root,
    genesis: join(root, "genesis.json"),
    genesisPending: join(root, "genesis.pending"),
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
    if (existsSync(directory) && !statSync(directory).isDirectory()) {
      throw new Error(
        `${directory} is not a folder: the ledger keeps its own files there; move it out of the way`,
      );
    }
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
  rmSync(paths.genesisPending, { force: true });
}

export class DataDirLockedError extends Error {
  override readonly name = "DataDirLockedError";
}

/** Another process took the data folder over while this one held it (paused past its lock's renewals). */
export class DataDirTakenOverError extends Error {
  override readonly name = "DataDirTakenOverError";
  constructor(root: string) {
    super(`another process took the ledger in ${root} over; this ledger writes nothing more to it`);
  }
}

export interface DataDirLock {
  /** Throws DataDirTakenOverError once another process has taken the folder over: checked before each write. */
  readonly assertOwned: () => void;
  readonly release: () => void;
}

/**
 * Takes the directory for this process, which `ensureDataDir` made: one process at a time, however
 * many start at once; a lock left by a process that no longer runs (kill -9) is taken over.
 */
export async function lockDataDir(
  paths: DataDirPaths,
  { onTakenOver }: { readonly onTakenOver?: (error: DataDirTakenOverError) => void } = {},
): Promise<DataDirLock> {
  let lock: DirectoryLock;
  try {
    lock = await lockDirectory(paths.lock, {
      onTakenOver: () => onTakenOver?.(new DataDirTakenOverError(paths.root)),
    });
  } catch (error) {
    if (!(error instanceof DirectoryLockedError)) throw error;
    throw new DataDirLockedError(
      `the ledger in ${paths.root} is already open in process ${error.pid} (if that process does not ` +
        `use this folder, as when the folder was copied from a running ledger's, empty ${error.lockFile}; ` +
        "never delete it)",
    );
  }
  try {
    // Earlier versions locked the folder with this file (a process id); it is no longer read.
    rmSync(paths.legacyLock, { force: true, recursive: true });
  } catch {
    // Left where it cannot be removed: nothing reads it.
  }
  return {
    assertOwned: () => {
      if (!lockFileRemains(lock.id)) throw new DataDirTakenOverError(paths.root);
    },
    release: () => lock.release(),
  };
}
