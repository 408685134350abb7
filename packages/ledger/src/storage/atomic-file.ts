/**
 * Crash-safe whole-file writes: write a temporary file, fsync it, rename it over the target,
 * fsync the directory. A reader sees the old file or the complete new one, never a partial one.
 * Files are created private (0600).
 */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";

import { PRIVATE_FILE_MODE } from "./data-dir.js";

export function fsyncDirectory(directory: string): void {
  const fd = openSync(directory, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function writeFileAtomically(path: string, parts: readonly Uint8Array[]): void {
  const temporary = `${path}.tmp-${process.pid}`;
  const fd = openSync(temporary, "w", PRIVATE_FILE_MODE);
  try {
    try {
      for (const part of parts) {
        let written = 0;
        while (written < part.length) written += writeSync(fd, part, written, part.length - written);
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    // (a disk that filled up gets its space back)
    rmSync(temporary, { force: true });
    throw error;
  }
  fsyncDirectory(dirname(path));
}
