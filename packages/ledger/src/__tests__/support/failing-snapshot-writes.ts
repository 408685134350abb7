/**
 * The fault of the tests that use it, injected on purpose: `fs.openSync` wrapped so that opening a
 * snapshot's temporary file fails with ENOSPC, as on a full disk, while the event log's writes go on.
 */
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

export function failingSnapshotWrites(): { failed: () => number; restore: () => void } {
  const realOpenSync = fs.openSync;
  let failed = 0;
  fs.openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
    if (/[/\\]snapshots[/\\]snapshot-.*\.tmp-/.test(String(path))) {
      failed += 1;
      throw Object.assign(new Error(`ENOSPC: no space left on device, open '${String(path)}'`), {
        code: "ENOSPC",
      });
    }
    return (realOpenSync as (...args: unknown[]) => number)(path, ...rest);
  }) as typeof fs.openSync;
  syncBuiltinESMExports();
  return {
    failed: () => failed,
    restore: () => {
      fs.openSync = realOpenSync;
      syncBuiltinESMExports();
    },
  };
}
