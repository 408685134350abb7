import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { ABAS_SDK__ATTESTOR_QUEUE_LOCKED, AbasError } from "@abas/errors";

export const LOCK_FILE_NAME = "lock";

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function lockHolder(lockFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockFile, "utf8"), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Makes this process the only owner of a queue directory: two attestors sending the same queue
 * would cut the same actions into different batches. A lock left by a process that no longer
 * runs (killed, crashed) is taken over. Returns the function that releases it.
 */
export function lockQueueDirectory(queueDir: string): () => void {
  const lockFile = join(queueDir, LOCK_FILE_NAME);
  for (;;) {
    try {
      writeFileSync(lockFile, String(process.pid), { flag: "wx", flush: true });
      return () => rmSync(lockFile, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const pid = lockHolder(lockFile);
    if (pid !== undefined && isProcessAlive(pid)) {
      throw new AbasError(ABAS_SDK__ATTESTOR_QUEUE_LOCKED, { queueDir, lockFile, pid });
    }
    rmSync(lockFile, { force: true });
  }
}
