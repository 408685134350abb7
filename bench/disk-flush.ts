/**
 * Where each record goes: "append", at the end of the file (each flush also commits the file's new
 * size); "zero-filled", into space written with zeros and flushed beforehand, as the attestor's
 * queue does (each flush writes data only).
 */
export type FlushPlacement = "append" | "zero-filled";

/**
 * The disk's own flush, the floor of every durable write here: `samples` writes of `record` to a
 * fresh file in the temporary directory, each flushed with fdatasync, back to back or at
 * `perSecond`. The times in ms, sorted.
 */
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { runPaced } from "./paced.js";

export async function timeFlushes(
  record: Uint8Array,
  samples: number,
  options: { perSecond?: number; placement?: FlushPlacement } = {},
): Promise<number[]> {
  const { perSecond, placement = "append" } = options;
  const dir = mkdtempSync(join(tmpdir(), "abas-bench-flush-"));
  const file = join(dir, "probe.log");
  if (placement === "zero-filled")
    writeFileSync(file, new Uint8Array(record.length * samples), { flush: true });
  const fd = openSync(file, placement === "append" ? "a" : "r+");
  const times: number[] = [];
  let offset = 0;
  const appendAndFlush = (): void => {
    const started = performance.now();
    if (placement === "append") writeSync(fd, record);
    else offset += writeSync(fd, record, 0, record.length, offset);
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
