/**
 * A diagnosis for the attestor bench (`BENCH_OTHERS_IDLE=1`): every thread of the given processes
 * but the recording one runs at SCHED_IDLE (util-linux `chrt --idle`), which the kernel preempts
 * as soon as a thread of normal priority wakes on its core. Threads started later are caught by a
 * scan every 100 ms. What remains of `record`'s tail then is the disk and the recording thread's
 * own work; what it loses is the time other threads held the core it woke on.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";

const SCAN_MS = 100;

export function keepOtherThreadsIdle(recordingThread: number, processes: readonly number[]): () => void {
  const done = new Set<number>([recordingThread]);
  const scan = (): void => {
    for (const pid of processes) {
      let threads: string[];
      try {
        threads = readdirSync(`/proc/${pid}/task`);
      } catch {
        continue; // the process has ended
      }
      for (const thread of threads.map(Number)) {
        if (done.has(thread)) continue;
        done.add(thread);
        const chrt = spawnSync("chrt", ["--idle", "--pid", "0", String(thread)], { encoding: "utf8" });
        if (chrt.error !== undefined) throw new Error(`chrt (util-linux) is needed: ${chrt.error.message}`);
      }
    }
  };
  scan();
  const timer = setInterval(scan, SCAN_MS);
  return () => clearInterval(timer);
}
