/**
 * The calls other proxies of the same server and ledger left queued in their folders (killed, or
 * stopped while the ledger did not answer), sent by a running proxy: at its start and every
 * LEFT_BEHIND_RETRY_MS after, while the ledger answers, each such folder that no proxy holds is
 * taken, sent, and let go. A folder a running proxy holds is that proxy's to send.
 */
import { existsSync } from "node:fs";

import { ABAS_SDK__ATTESTOR_QUEUE_LOCKED, isAbasError } from "@abas/errors";
import { queuedActionHashes } from "@abas/sdk/attestor";

import { describeError } from "./describe-error.js";
import { ledgerProblem } from "./ledger-probe.js";
import { openProxyQueue, type ProxyQueueSettings } from "./proxy-queue.js";

export const LEFT_BEHIND_RETRY_MS = 10_000;

/**
 * Takes `queueDir` if it holds calls and no proxy holds it, sends them, and lets it go. `problems`
 * holds the last problem logged for each folder: the same one is not logged again at every pass.
 */
async function sendFolder(
  queueDir: string,
  settings: ProxyQueueSettings,
  problems: Map<string, string>,
): Promise<void> {
  const problem = (line: string): void => {
    if (problems.get(queueDir) === line) return;
    problems.set(queueDir, line);
    settings.log(line);
  };
  const retry = `tried again in ${LEFT_BEHIND_RETRY_MS / 1000} s`;
  try {
    if (!existsSync(queueDir) || queuedActionHashes(queueDir).size === 0) return;
    // Flushed as "fsync" does whatever this proxy's setting: the calls may have been recorded so.
    const queue = await openProxyQueue(queueDir, {
      ...settings,
      config: { ...settings.config, durability: "fsync" },
    });
    settings.log(`sending the calls left in ${queueDir}`);
    problems.delete(queueDir);
    await queue.close();
    const unsent = queuedActionHashes(queueDir).size;
    if (unsent > 0) problem(`${unsent} of the calls left in ${queueDir} are not sent yet: ${retry}`);
  } catch (error) {
    if (isAbasError(error, ABAS_SDK__ATTESTOR_QUEUE_LOCKED)) return;
    problem(`cannot send the calls left in ${queueDir}: ${describeError(error)}; ${retry}`);
  }
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
  const problems = new Map<string, string>();
  const pass = async (): Promise<void> => {
    if ((await ledgerProblem(settings.config.rpcUrl)) !== undefined) return;
    for (const queueDir of queueDirs) {
      if (stopped) return;
      await sendFolder(queueDir, settings, problems);
    }
  };
  const loop = (): void => {
    void pass().finally(() => {
      if (!stopped) timer = setTimeout(loop, LEFT_BEHIND_RETRY_MS).unref();
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
