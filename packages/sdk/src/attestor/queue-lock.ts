/**
 * One attestor at a time owns a queue directory. Ownership is a numbered lock file, `lock.<n>`,
 * holding the owner's process id (or `released`); the owner is the creator of the highest number.
 * Taking over a lock whose process no longer runs creates the next number, which the file system
 * lets exactly one process do, so two processes that both find the same stale lock can never
 * both own the queue. A lock file is never removed while it is the highest, only marked released.
 */
import { linkSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { ABAS_SDK__ATTESTOR_QUEUE_LOCKED, AbasError } from "@abas/errors";

const LOCK_NAME = /^lock\.(\d+)$/;
const CLAIM_NAME = /^lock-claim\.(\d+)\.[0-9a-z]+$/;
const RELEASED = "released";

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function highestLock(queueDir: string): number {
  let highest = 0;
  for (const name of readdirSync(queueDir)) {
    const match = LOCK_NAME.exec(name);
    if (match !== null) highest = Math.max(highest, Number(match[1]));
  }
  return highest;
}

/** The process id a lock file names: undefined when released (or unreadable), null when it is gone. */
function readHolder(lockFile: string): number | undefined | null {
  let text: string;
  try {
    text = readFileSync(lockFile, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  const pid = Number(text);
  return text !== RELEASED && Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

/** A complete file under a name of this process's own, to link or rename into place. */
function writeClaim(queueDir: string, content: string): string {
  const claim = join(queueDir, `lock-claim.${process.pid}.${Math.random().toString(36).slice(2)}`);
  writeFileSync(claim, content, { flush: true });
  return claim;
}

/** The new owner removes the lock files below its own and the claims of processes gone. */
function removeLeftovers(queueDir: string, own: number): void {
  for (const name of readdirSync(queueDir)) {
    const lock = LOCK_NAME.exec(name);
    const claim = CLAIM_NAME.exec(name);
    if ((lock !== null && Number(lock[1]) < own) || (claim !== null && !isProcessAlive(Number(claim[1])))) {
      rmSync(join(queueDir, name), { force: true });
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
  for (;;) {
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
    const lockFile = join(queueDir, `lock.${own}`);
    const claim = writeClaim(queueDir, String(process.pid));
    try {
      linkSync(claim, lockFile);
    } catch (error) {
      // Another process took this number first: look again.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      continue;
    } finally {
      rmSync(claim, { force: true });
    }
    removeLeftovers(queueDir, own);
    return () => renameSync(writeClaim(queueDir, RELEASED), lockFile);
  }
}
