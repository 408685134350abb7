/**
 * The disk's own flush, the floor of every durable write here: `samples` appends of `record` to a
 * fresh file in the temporary directory, each flushed with fdatasync, back to back or at
 * `perSecond`. The times in ms, sorted. And, to compare with a flush's wait, how late a thread
 * that slept for a timer runs again.
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { runPaced } from "./paced.js";

export async function timeAppendFlushes(
  record: Uint8Array,
  samples: number,
  perSecond?: number,
): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), "abas-bench-flush-"));
  const fd = openSync(join(dir, "probe.log"), "a");
  const times: number[] = [];
  const appendAndFlush = (): void => {
    const started = performance.now();
    writeSync(fd, record);
    fdatasyncSync(fd);
    times.push(performance.now() - started);
  };
  try {
    if (perSecond === undefined) for (let sample = 0; sample < samples; sample += 1) appendAndFlush();
    else await runPaced(samples, perSecond, appendAndFlush);
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
  return times.sort((a, b) => a - b);
}

/** `samples` sleeps of `sleepMs` back to back, each until a timer (Atomics.wait): how late each ended, in ms, sorted. */
export function timeTimerLateness(samples: number, sleepMs: number): number[] {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const lateness: number[] = [];
  for (let sample = 0; sample < samples; sample += 1) {
    const started = performance.now();
    Atomics.wait(cell, 0, 0, sleepMs);
    lateness.push(performance.now() - started - sleepMs);
  }
  return lateness.sort((a, b) => a - b);
}
