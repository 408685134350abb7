/**
 * The fault of the tests that use it, injected on purpose: `fs.writeSync` wrapped so that writing a
 * snapshot's temporary file fails with ENOSPC, as on a full disk, once the file is opened, while
 * the event log's writes go on.
 */
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

export function failingSnapshotWrites(): { failed: () => number; restore: () => void } {
  const realOpenSync = fs.openSync;
  const realWriteSync = fs.writeSync;
  const snapshotFiles = new Set<number>();
  let failed = 0;
  fs.openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
    const fd = (realOpenSync as (...args: unknown[]) => number)(path, ...rest);
    if (/[/\\]snapshots[/\\]snapshot-.*\.tmp-/.test(String(path))) snapshotFiles.add(fd);
    return fd;
  }) as typeof fs.openSync;
  fs.writeSync = ((fd: number, ...rest: unknown[]) => {
    if (snapshotFiles.has(fd)) {
      snapshotFiles.delete(fd);
      failed += 1;
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    }
    return (realWriteSync as (...args: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.writeSync;
  syncBuiltinESMExports();
  return {
    failed: () => failed,
    restore: () => {
      fs.openSync = realOpenSync;
      fs.writeSync = realWriteSync;
      syncBuiltinESMExports();
    },
  };
}
