/**
 * The one fake of the tests that use it, for the fault injected on purpose: `fs.fdatasync` wrapped
 * so that the next call after `failNext()` fails with EIO, as a failing disk's would (what was
 * written before it stays in the file, as it does in the page cache when no power is lost).
 */
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

export function failingFdatasync(): { failNext: () => void; restore: () => void } {
  const realFdatasync = fs.fdatasync;
  let failNextSync = false;
  fs.fdatasync = ((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    if (!failNextSync) return realFdatasync(fd, callback);
    failNextSync = false;
    setImmediate(() => callback(Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" })));
  }) as typeof fs.fdatasync;
  syncBuiltinESMExports();
  return {
    failNext: () => (failNextSync = true),
    restore: () => {
      fs.fdatasync = realFdatasync;
      syncBuiltinESMExports();
    },
  };
}
