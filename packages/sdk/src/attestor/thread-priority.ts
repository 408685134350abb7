/**
 * The attestor's sender thread runs below the agent's own threads. On a machine whose cores are
 * all busy, a `record` whose queue line has just reached the disk waits for a core before it can
 * return; a sender at a lower priority gives the core up to it rather than sharing it.
 */
import { readlinkSync } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { basename } from "node:path";

/** How many nice steps the sender thread runs below the thread that opened the attestor. */
export const SENDER_NICE_STEPS = 10;
const LOWEST_PRIORITY = 19;

/**
 * Lowers the calling thread's priority by `steps` nice steps, on Linux, where each thread has a
 * nice value of its own. Elsewhere, or where the system refuses, it does nothing: the order helps
 * the agent's latency and is never needed for correctness.
 */
export function lowerThisThreadPriority(steps: number): void {
  if (process.platform !== "linux") return;
  try {
    const threadId = Number(basename(readlinkSync("/proc/thread-self")));
    setPriority(threadId, Math.min(LOWEST_PRIORITY, getPriority(threadId) + steps));
  } catch {
    // No /proc, or a sandbox that refuses setpriority: the sender runs at the agent's priority.
  }
}
