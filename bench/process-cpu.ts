import { readFileSync } from "node:fs";

/**
 * The fields of /proc/<pid>/stat (Linux) after the process's name, from its state on (field 3), or
 * undefined once the process has ended.
 */
export function procStatFields(pid: number | undefined): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** User and system time of a process from /proc (Linux), in ms: clock ticks of 10 ms. */
export function processCpuMs(pid: number | undefined): number | undefined {
  const fields = procStatFields(pid);
  return fields === undefined ? undefined : (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * Starts counting the CPU time of this process (all its threads) and of process `otherPid`; the
 * function returned gives both, in ms, since the start.
 */
export function startCpuClock(otherPid: number): () => { ownMs: number; otherMs: number } {
  const ownBefore = process.cpuUsage();
  const otherBefore = processCpuMs(otherPid) ?? NaN;
  return () => {
    const own = process.cpuUsage(ownBefore);
    return { ownMs: (own.user + own.system) / 1000, otherMs: (processCpuMs(otherPid) ?? NaN) - otherBefore };
  };
}
