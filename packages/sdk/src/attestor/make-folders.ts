/**
 * `mkdir -p` one folder at a time. Node's own recursive mkdir never returns where a folder cannot
 * be made although its parent exists (under /proc, say: it retries the parent for ever); made here
 * one call per missing folder from the top, a failure is thrown at once.
 */
import { existsSync, mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** Makes `path` and the folders above it that are missing; returns the first one made, if any. */
export function makeFolders(path: string, mode = 0o700): string | undefined {
  const missing: string[] = [];
  for (let dir = resolve(path); !existsSync(dir) && dir !== dirname(dir); dir = dirname(dir)) {
    missing.unshift(dir);
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir, { mode });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  // A file where the folder should be: mkdir's own EEXIST, as `mkdir -p` gives.
  if (!statSync(path).isDirectory()) mkdirSync(path, { mode });
  return missing[0];
}
