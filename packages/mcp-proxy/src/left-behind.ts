/**
 * The calls other proxies of the same server, ledger and receipts folder left queued in their
 * folders (killed, or stopped while the ledger did not answer), sent by a running proxy. At its
 * start and every LEFT_BEHIND_SCAN_MS after, a folder whose queue file is not empty and whose lock
 * names no running process (both read without reading the queue) is taken, sent, and let go, once
 * the ledger answers. A folder a running proxy holds is that proxy's to send. A folder whose calls
 * could not all be sent is tried again later and later (up to LEFT_BEHIND_MAX_RETRY_MS apart), and
 * the same problem is logged once.
 */
import { statSync } from "node:fs";
import { join } from "node:path";

import { directoryLockHolder } from "@abas/dir-lock";
import { ABAS_SDK__ATTESTOR_QUEUE_LOCKED, getAbasErrorCodeName, isAbasError } from "@abas/errors";
import { QUEUE_FILE_NAME, queuedActionHashes } from "@abas/sdk/attestor";

import { describeError } from "./describe-error.js";
import { ledgerProblem } from "./ledger-probe.js";
import { openProxyQueue, type ProxyQueueSettings } from "./proxy-queue.js";

export const LEFT_BEHIND_SCAN_MS = 10_000;
export const LEFT_BEHIND_MAX_RETRY_MS = 10 * 60_000;

/** Whether `queueDir` may hold calls that no running proxy sends, judged without reading its queue. */
function mayNeedSending(queueDir: string): boolean {
  try {
    const queueFile = statSync(join(queueDir, QUEUE_FILE_NAME), { throwIfNoEntry: false });
    return queueFile !== undefined && queueFile.size > 0 && directoryLockHolder(queueDir) === undefined;
  } catch {
    return true; // unreadable: taking it names the problem
  }
}

type FolderState = { failures: number; retryAt: number; problem?: string };

/** Why a send failed, for telling the same problem from a new one (not its message, which may name a random file). */
function problemKind(error: unknown): string {
  if (isAbasError(error)) return getAbasErrorCodeName(error.context.__code);
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

/**
 * Starts sending what was left in `queueDirs`. `stop` ends it without waiting: a send under way is
 * abandoned with the process, and what it had not finished stays in its folder for the next proxy,
 * as after a kill -9 (a batch is sent once, whoever sends it).
 */
export function sendLeftBehind(
  queueDirs: readonly string[],
  settings: ProxyQueueSettings,
): { stop: () => void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const folders = new Map<string, FolderState>();

  /** Counts a failed try of `queueDir`, logging `line` unless its kind was the last one logged. */
  const failed = (queueDir: string, kind: string, line: (retrySeconds: number) => string): void => {
    const state = folders.get(queueDir) ?? { failures: 0, retryAt: 0 };
    const retryMs = Math.min(LEFT_BEHIND_SCAN_MS * 2 ** state.failures, LEFT_BEHIND_MAX_RETRY_MS);
    if (state.problem !== kind) settings.log(line(retryMs / 1000));
    folders.set(queueDir, { failures: state.failures + 1, retryAt: Date.now() + retryMs, problem: kind });
  };

  const send = async (queueDir: string): Promise<void> => {
    try {
      // Flushed as "fsync" does whatever this proxy's setting: the calls may have been recorded so.
      const queue = await openProxyQueue(queueDir, {
        ...settings,
        config: { ...settings.config, durability: "fsync" },
      });
      if (folders.get(queueDir) === undefined) settings.log(`sending the calls left in ${queueDir}`);
      await queue.close();
      const unsent = queuedActionHashes(queueDir).size;
      if (unsent === 0) folders.delete(queueDir);
      else
        failed(
          queueDir,
          "unsent",
          (seconds) =>
            `${unsent} of the calls left in ${queueDir} are not on the ledger yet: tried again in ${seconds} s, then less often`,
        );
    } catch (error) {
      if (isAbasError(error, ABAS_SDK__ATTESTOR_QUEUE_LOCKED)) return; // another proxy took it
      failed(
        queueDir,
        problemKind(error),
        (seconds) =>
          `cannot send the calls left in ${queueDir}: ${describeError(error)}; tried again in ${seconds} s, then less often`,
      );
    }
  };

  const pass = async (): Promise<void> => {
    const now = Date.now();
    const due = queueDirs.filter((dir) => (folders.get(dir)?.retryAt ?? 0) <= now && mayNeedSending(dir));
    if (due.length === 0 || (await ledgerProblem(settings.config.rpcUrl)) !== undefined) return;
    for (const queueDir of due) {
      if (stopped) return;
      await send(queueDir);
    }
  };
  const loop = (): void => {
    void pass().finally(() => {
      if (!stopped) timer = setTimeout(loop, LEFT_BEHIND_SCAN_MS).unref();
    });
  };
  loop();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
