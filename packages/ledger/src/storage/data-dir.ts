/**
 * The files of a ledger directory, its single-process lock, and `--reset`.
 *
 *   genesis.json           what genesis created (program id, genesis hash, faucet); written last,
 *                          so its absence means genesis did not finish
 *   faucet-keypair.json    the faucet (and upgrade authority) keypair, Solana CLI format
 *   ledger.log             the event log
 *   snapshots/             snapshot-<log offset>.bin
 *   ledger.lock            the pid of the process that has the ledger open
 *
 * The faucet keypair is a secret: the directories are 0700 and every file 0600 (PRIVATE_FILE_MODE).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface DataDirPaths {
  readonly root: string;
  readonly genesis: string;
  readonly faucetKeypair: string;
  readonly eventLog: string;
  readonly snapshots: string;
  readonly lock: string;
}

export function dataDirPaths(root: string): DataDirPaths {
  return {
    root,
    genesis: join(root, "genesis.json"),
    faucetKeypair: join(root, "faucet-keypair.json"),
    eventLog: join(root, "ledger.log"),
    snapshots: join(root, "snapshots"),
    lock: join(root, "ledger.lock"),
  };
}

/** Files the ledger creates: readable by their owner only. */
export const PRIVATE_FILE_MODE = 0o600;
const PRIVATE_DIRECTORY_MODE = 0o700;

/** Creates the directories, and makes them and the ledger's files private (older versions left them 0644). */
export function ensureDataDir(paths: DataDirPaths): void {
  mkdirSync(paths.snapshots, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  for (const directory of [paths.root, paths.snapshots]) chmodSync(directory, PRIVATE_DIRECTORY_MODE);
  for (const file of [paths.genesis, paths.faucetKeypair, paths.eventLog]) {
    if (existsSync(file)) chmodSync(file, PRIVATE_FILE_MODE);
  }
}

/** Removes the ledger's own files only, never anything else a user keeps in the directory. */
export function removeLedgerFiles(paths: DataDirPaths): void {
  for (const path of [paths.genesis, paths.faucetKeypair, paths.eventLog]) rmSync(path, { force: true });
  rmSync(paths.snapshots, { recursive: true, force: true });
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export class DataDirLockedError extends Error {
  override readonly name = "DataDirLockedError";
}

/** Takes the directory for this process; a lock left by a dead process (kill -9) is taken over. */
export function lockDataDir(paths: DataDirPaths): () => void {
  if (existsSync(paths.lock)) {
    const pid = Number(readFileSync(paths.lock, "utf8").trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && isProcessAlive(pid)) {
      throw new DataDirLockedError(`the ledger in ${paths.root} is already open in process ${pid}`);
    }
  }
  writeFileSync(paths.lock, `${process.pid}\n`, { mode: PRIVATE_FILE_MODE });
  return () => {
    if (existsSync(paths.lock) && readFileSync(paths.lock, "utf8").trim() === String(process.pid)) {
      rmSync(paths.lock, { force: true });
    }
  };
}
