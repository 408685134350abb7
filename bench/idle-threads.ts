/**
 * A diagnosis for the benches of the attestor and the MCP proxy (`BENCH_OTHERS_IDLE=1`): every
 * thread of this process and of the processes it started runs at SCHED_IDLE (util-linux
 * `chrt --idle`) except each process's main thread, and so does every thread of the processes
 * named wholly (the ledger, which stands in for a cluster elsewhere). The kernel takes a core from
 * a SCHED_IDLE thread as soon as a thread of normal priority wakes on it, so what remains of a
 * main thread's latency is its own work and its I/O, not the time other threads held its core.
 * Threads and processes started later are caught by a scan every 100 ms.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";

import { procStatFields } from "../packages/dir-lock/src/process-identity.js";

const SCAN_MS = 100;

/** The parent of each running process, from /proc/<pid>/stat. */
function parents(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = procStatFields(Number(entry));
    if (fields !== undefined) parentOf.set(Number(entry), Number(fields[1])); // else ended meanwhile
  }
  return parentOf;
}

function descendantsOf(root: number): number[] {
  const parentOf = parents();
  const found = [root];
  for (let index = 0; index < found.length; index++) {
    for (const [pid, parent] of parentOf) if (parent === found[index]) found.push(pid);
  }
  return found;
}

function threadsOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return []; // ended meanwhile
  }
}

/** Starts the scan; the returned function stops it (threads set idle stay so). */
export function keepOtherThreadsIdle(wholly: readonly number[]): () => void {
  const done = new Set<number>();
  const scan = (): void => {
    for (const pid of descendantsOf(process.pid)) {
      for (const thread of threadsOf(pid)) {
        if (done.has(thread) || (thread === pid && !wholly.includes(pid))) continue;
        done.add(thread);
        const chrt = spawnSync("chrt", ["--idle", "--pid", "0", String(thread)], { encoding: "utf8" });
        if (chrt.error !== undefined) throw new Error(`chrt (util-linux) is needed: ${chrt.error.message}`);
        if (chrt.status !== 0 && threadsOf(pid).includes(thread)) {
          throw new Error(`chrt --idle refused thread ${thread} of process ${pid}: ${chrt.stderr.trim()}`);
        }
      }
    }
  };
  scan();
  const timer = setInterval(scan, SCAN_MS).unref(); // never what keeps a bench that failed running
  return () => clearInterval(timer);
}
