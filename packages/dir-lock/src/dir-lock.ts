/**
 * One process at a time owns a directory (an attestor's queue, a ledger's data). Ownership is a
 * numbered lock file, `lock.<n>`, naming the owner's process (process-identity.ts); the owner is
 * the creator of the highest number. Taking over a lock whose process no longer runs creates the
 * next number, which the file system lets exactly one process do; a process that finds a higher
 * number than its own once it has created it (it acted on what it read before) gives its own up.
 * Releasing empties the file, which needs no disk space; the highest lock file is never removed,
 * so numbers only grow (which is why a lock is freed by hand by emptying its file, never by
 * deleting it). Lock files are readable by their owner only, as the ledger's files are.
 *
 * A lock taken in another pid namespace or under another boot (another container sharing the
 * folder, a restarted one, a reboot), or naming a process id alone, names a process this one
 * cannot look at (`processState` in process-identity.ts): its owner renews the file's modification
 * time every LEASE_RENEW_MS from the moment it takes it, and such a lock is taken over only when
 * a watch of LEASE_WATCH_MS sees no renewal (clocks are not compared, only whether
 * the time changed).
 */
import {
  linkSync,
  lstatSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as delay } from "node:timers/promises";

import {
  formatIdentity,
  ownIdentity,
  parseIdentity,
  processState,
  type ProcessIdentity,
  type ProcessState,
} from "./process-identity.js";

/** How often an owner renews its lock file's modification time. */
export const LEASE_RENEW_MS = 1_000;
/** How long a lock whose process cannot be looked at is watched for a renewal before it is taken over. */
export const LEASE_WATCH_MS = 5_000;
const LEASE_POLL_MS = 100;

/** Numbers as this module writes them: no leading zero (other names, and numbers past a safe integer, are not locks). */
const LOCK_NAME = /^lock\.([1-9]\d*)$/;
const CLAIM_NAME = /^lock-claim\.\d+\.[0-9a-z]+$/;
/** A bound on the rounds of taking the lock: its files would have to keep changing under it. */
const MAX_ROUNDS = 1000;

function lockNumber(name: string): number | undefined {
  const match = LOCK_NAME.exec(name);
  return match !== null && Number.isSafeInteger(Number(match[1])) ? Number(match[1]) : undefined;
}

function highestLock(directory: string): number {
  let highest = 0;
  for (const name of readdirSync(directory)) highest = Math.max(highest, lockNumber(name) ?? 0);
  return highest;
}

/**
 * The process a lock file names; undefined when it names none (released, or not a file this
 * module writes: a link, a folder, a pipe), null when the file is gone (a new owner removed it
 * meanwhile).
 */
function readHolder(lockFile: string): ProcessIdentity | undefined | null {
  try {
    if (!lstatSync(lockFile).isFile()) return undefined;
    return parseIdentity(readFileSync(lockFile, "utf8"));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function modifiedAt(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Whether the owner of a lock this process cannot look at still renews it: "runs" as soon as its
 * modification time changes, "gone" when it stays the same for LEASE_WATCH_MS (timed by the
 * monotonic clock, which a change of the wall clock does not move), "removed" when the file goes
 * (a new owner took the directory meanwhile).
 */
async function watchLease(lockFile: string): Promise<ProcessState | "removed"> {
  const first = modifiedAt(lockFile);
  if (first === undefined) return "removed";
  const deadline = performance.now() + LEASE_WATCH_MS;
  while (performance.now() < deadline) {
    await delay(LEASE_POLL_MS);
    const now = modifiedAt(lockFile);
    if (now === undefined) return "removed";
    if (now !== first) return "runs";
  }
  return "gone";
}

/** An owner's renewal of its lock (see LEASE_RENEW_MS); a lock already released or removed is left as it is. */
export function renewDirectoryLock(lockFile: string): void {
  try {
    const now = new Date();
    if (statSync(lockFile).size > 0) utimesSync(lockFile, now, now);
  } catch {
    // Gone or not writable: the next renewal tries again; a watcher meanwhile sees no renewal.
  }
}

/** A complete file under a name of this process's own, to link into place. */
function writeClaim(directory: string): string {
  const claim = join(directory, `lock-claim.${process.pid}.${Math.random().toString(36).slice(2)}`);
  writeFileSync(claim, formatIdentity(ownIdentity()), { flush: true, mode: 0o600 });
  return claim;
}

/** A claim's life is a write, a link and a removal: one this old was left by a process that died meanwhile. */
const ABANDONED_CLAIM_MS = 60_000;

function isAbandonedClaim(file: string): boolean {
  const modified = modifiedAt(file);
  return modified !== undefined && Date.now() - modified > ABANDONED_CLAIM_MS;
}

/**
 * The new owner removes the lock files below its own, and abandoned claims as it can (a claim is
 * judged by its age, not by the process id in its name, which may be another pid namespace's).
 */
function removeLeftovers(directory: string, own: number): void {
  for (const name of readdirSync(directory)) {
    const lock = lockNumber(name);
    const claim = CLAIM_NAME.test(name);
    const path = join(directory, name);
    if ((lock !== undefined && lock < own) || (claim && isAbandonedClaim(path))) {
      try {
        rmSync(path, { force: true });
      } catch (error) {
        // Not a file (a folder someone made): it is not in the way of the lock. A lock file that
        // stays would let its owner, paused, go on working in the directory: it is not taken then.
        if (lock !== undefined && !lstatSync(path, { throwIfNoEntry: false })?.isDirectory()) throw error;
      }
    }
  }
}

/** The process id of a directory's owner, unless its process is known to be gone. */
export function directoryLockHolder(directory: string): number | undefined {
  const highest = highestLock(directory);
  if (highest === 0) return undefined;
  const holder = readHolder(join(directory, `lock.${highest}`));
  return holder && processState(holder) !== "gone" ? holder.pid : undefined;
}

/** A lock file as it was taken: its name, and the file under it then (not a later one under the same name). */
export type LockFileId = Readonly<{ file: string; dev: number; ino: number }>;

/** Whether the lock file is still there as it was taken: a new owner removes it before it uses the directory. */
export function lockFileRemains(id: LockFileId): boolean {
  const stat = lstatSync(id.file, { throwIfNoEntry: false });
  return stat !== undefined && stat.ino === id.ino && stat.dev === id.dev;
}

/** lockFileRemains for a renewal: a file it cannot look at (permissions changed under it) counts as still there. */
function stillOwned(id: LockFileId): boolean {
  try {
    return lockFileRemains(id);
  } catch {
    return true;
  }
}

export interface DirectoryLock {
  /** The lock file, for its renewals (`renewDirectoryLock`) and `lockFileRemains`. */
  readonly id: LockFileId;
  /** Whether this lock is still the directory's: its file remains and no higher number is there. */
  isHeld(): boolean;
  release(): void;
}

/** Another process owns the directory: `pid` names it. */
export class DirectoryLockedError extends Error {
  override readonly name = "DirectoryLockedError";
  constructor(
    readonly directory: string,
    readonly lockFile: string,
    readonly pid: number,
  ) {
    super(
      `${directory} is in use by process ${pid} (if that process does not use it, empty ${lockFile}; never delete it)`,
    );
  }
}

export interface LockDirectoryOptions {
  /**
   * Called once when a renewal finds the lock file gone: another process took the directory over
   * (this one was paused past LEASE_WATCH_MS, seen from another pid namespace or boot). Renewals stop.
   */
  readonly onTakenOver?: () => void;
}

/**
 * Makes this process the only owner of a directory (which must exist). A lock left by a process
 * that no longer runs (killed, crashed) is taken over; one naming a process that runs, whatever it
 * is, throws DirectoryLockedError; one naming a process this one cannot look at is watched for
 * LEASE_WATCH_MS first.
 */
export async function lockDirectory(
  directory: string,
  { onTakenOver }: LockDirectoryOptions = {},
): Promise<DirectoryLock> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const highest = highestLock(directory);
    if (highest > 0) {
      const lockFile = join(directory, `lock.${highest}`);
      const holder = readHolder(lockFile);
      if (holder === null) continue; // removed by a new owner meanwhile: look again
      if (holder !== undefined) {
        let state: ProcessState | "removed" = processState(holder);
        if (state === "unknown") state = await watchLease(lockFile);
        if (state === "removed") continue; // a new owner took it meanwhile: look again
        if (state === "runs") {
          throw new DirectoryLockedError(directory, lockFile, holder.pid);
        }
        // Gone: taken over below, unless another process takes it first (then this round starts again).
      }
    }
    const own = highest + 1;
    if (!Number.isSafeInteger(own)) throw new Error(`no lock number is left after lock.${highest}`);
    const lockFile = join(directory, `lock.${own}`);
    const claim = writeClaim(directory);
    try {
      linkSync(claim, lockFile);
    } catch (error) {
      // Another process took this number first, or a new owner removed the claim as abandoned
      // (this process was held up for a minute between writing and linking it): look again.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EEXIST" && code !== "ENOENT") throw error;
      continue;
    } finally {
      rmSync(claim, { force: true });
    }
    if (highestLock(directory) > own) {
      // The number was free again only because a later owner had removed it: that one owns the directory.
      rmSync(lockFile, { force: true });
      continue;
    }
    const { dev, ino } = lstatSync(lockFile);
    const id: LockFileId = { file: lockFile, dev, ino };
    removeLeftovers(directory, own);
    // Renewed from the moment it is taken (an owner whose own thread may be held by its work
    // renews it from another thread too, as the attestor's sender thread does).
    const renewal = setInterval(() => {
      if (stillOwned(id)) {
        renewDirectoryLock(lockFile);
        return;
      }
      clearInterval(renewal);
      onTakenOver?.();
    }, LEASE_RENEW_MS).unref();
    return {
      id,
      isHeld: () => lockFileRemains(id) && highestLock(directory) === own,
      release: () => {
        clearInterval(renewal);
        try {
          truncateSync(lockFile, 0);
        } catch (error) {
          // Removed by a process that took the directory over (this one was held up): not this one's to release.
          if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        }
      },
    };
  }
  throw new Error(`the lock files of ${directory} kept changing for ${MAX_ROUNDS} rounds`);
}
