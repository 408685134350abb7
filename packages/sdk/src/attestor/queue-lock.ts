/**
 * One attestor at a time owns a queue directory. Ownership is a numbered lock file, `lock.<n>`,
 * holding the owner's process id; the owner is the creator of the highest number. Taking over a
 * lock whose process no longer runs creates the next number, which the file system lets exactly
 * one process do; a process that finds a higher number than its own once it has created it (it
 * acted on what it read before) gives its own up. Releasing empties the file, which needs no disk
 * space; the highest lock file is never removed, so numbers only grow (which is why a lock is
 * freed by hand by emptying its file, never by deleting it).
 */
import { linkSync, lstatSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { ABAS_SDK__ATTESTOR_QUEUE_LOCKED, AbasError } from "@abas/errors";

/** Numbers as this module writes them: no leading zero (other names, and numbers past a safe integer, are not locks). */
const LOCK_NAME = /^lock\.([1-9]\d*)$/;
const CLAIM_NAME = /^lock-claim\.(\d+)\.[0-9a-z]+$/;
/** A bound on the rounds of taking the lock: its files would have to keep changing under it. */
const MAX_ROUNDS = 1000;

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function lockNumber(name: string): number | undefined {
  const match = LOCK_NAME.exec(name);
  return match !== null && Number.isSafeInteger(Number(match[1])) ? Number(match[1]) : undefined;
}

function highestLock(queueDir: string): number {
  let highest = 0;
  for (const name of readdirSync(queueDir)) highest = Math.max(highest, lockNumber(name) ?? 0);
  return highest;
}

/**
 * The process id a lock file names; undefined when it names none (released, or unreadable such
 * as a link to nothing), null when the file is gone (a new owner removed it meanwhile).
 */
function readHolder(lockFile: string): number | undefined | null {
  let text: string;
  try {
    text = readFileSync(lockFile, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    try {
      lstatSync(lockFile);
      return undefined;
    } catch {
      return null;
    }
  }
  return /^[1-9]\d*$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
}

/** A complete file under a name of this process's own, to link into place. */
function writeClaim(queueDir: string): string {
  const claim = join(queueDir, `lock-claim.${process.pid}.${Math.random().toString(36).slice(2)}`);
  writeFileSync(claim, String(process.pid), { flush: true });
  return claim;
}

/** The new owner removes the lock files below its own and the claims of processes gone, as it can. */
function removeLeftovers(queueDir: string, own: number): void {
  for (const name of readdirSync(queueDir)) {
    const lock = lockNumber(name);
    const claim = CLAIM_NAME.exec(name);
    if ((lock !== undefined && lock < own) || (claim !== null && !isProcessAlive(Number(claim[1])))) {
      try {
        rmSync(join(queueDir, name), { force: true });
      } catch {
        // Not a file (a folder someone made): it is not in the way of the lock.
      }
    }
  }
}

/** The process that owns a queue directory, if one that still runs does. */
export function queueLockHolder(queueDir: string): number | undefined {
  const highest = highestLock(queueDir);
  if (highest === 0) return undefined;
  const pid = readHolder(join(queueDir, `lock.${highest}`));
  return typeof pid === "number" && isProcessAlive(pid) ? pid : undefined;
}

/**
 * Makes this process the only owner of a queue directory: two attestors sending the same queue
 * would cut the same actions into different batches. A lock left by a process that no longer
 * runs (killed, crashed) is taken over; one naming a process that runs, whatever it is, is not.
 * Returns the function that releases it.
 */
export function lockQueueDirectory(queueDir: string): () => void {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const highest = highestLock(queueDir);
    if (highest > 0) {
      const lockFile = join(queueDir, `lock.${highest}`);
      const pid = readHolder(lockFile);
      if (pid === null) continue; // removed by a new owner meanwhile: look again
      if (pid !== undefined && isProcessAlive(pid)) {
        throw new AbasError(ABAS_SDK__ATTESTOR_QUEUE_LOCKED, { queueDir, lockFile, pid });
      }
    }
    const own = highest + 1;
    if (!Number.isSafeInteger(own)) throw new Error(`no lock number is left after lock.${highest}`);
    const lockFile = join(queueDir, `lock.${own}`);
    const claim = writeClaim(queueDir);
    try {
      linkSync(claim, lockFile);
    } catch (error) {
      // Another process took this number first: look again.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      continue;
    } finally {
      rmSync(claim, { force: true });
    }
    if (highestLock(queueDir) > own) {
      // The number was free again only because a later owner had removed it: that one owns the queue.
      rmSync(lockFile, { force: true });
      continue;
    }
    removeLeftovers(queueDir, own);
    return () => truncateSync(lockFile, 0);
  }
  throw new Error(`the lock files of ${queueDir} kept changing for ${MAX_ROUNDS} rounds`);
}
