/**
 * The one fake of the tests that use it, for the fault injected on purpose: `fs.writeSync` wrapped
 * so that, after `fillAfter(bytes)`, the next write takes only that many bytes and the one after
 * it fails with ENOSPC, as a disk that fills up in the middle of a line does.
 */
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

export function fullDisk(): { fillAfter: (bytes: number) => void; restore: () => void } {
  const realWriteSync = fs.writeSync;
  let room: number | undefined;
  fs.writeSync = ((fd: number, data: NodeJS.ArrayBufferView | string, ...rest: unknown[]) => {
    if (room === undefined) return (realWriteSync as (...args: unknown[]) => number)(fd, data, ...rest);
    if (room === 0) {
      room = undefined;
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    }
    const bytes =
      typeof data === "string"
        ? Buffer.from(data)
        : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const offset = typeof rest[0] === "number" ? rest[0] : 0;
    const taken = realWriteSync(fd, bytes, offset, Math.min(room, bytes.length - offset));
    room = 0;
    return taken;
  }) as typeof fs.writeSync;
  syncBuiltinESMExports();
  return {
    fillAfter: (bytes) => (room = bytes),
    restore: () => {
      fs.writeSync = realWriteSync;
      syncBuiltinESMExports();
    },
  };
}
