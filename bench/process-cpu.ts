import { procStatFields } from "../packages/dir-lock/src/process-identity.js";

/** User and system time of a process from /proc (Linux), in ms: clock ticks of 10 ms. */
export function processCpuMs(pid: number | undefined): number | undefined {
  const fields = pid === undefined ? undefined : procStatFields(pid);
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
