/**
 * The attestations' version token (readAttestationsVersion), read again once the last read started
 * more than `maxStalenessMs` ago. A page served from a cache under this token therefore includes
 * every row committed more than `maxStalenessMs` before the request arrived. Concurrent requests
 * share one read.
 */
import { monotonicMs } from "./monotonic-clock.js";

export interface DataVersionOptions {
  readonly read: () => Promise<string>;
  /** 0 reads the token for every request. */
  readonly maxStalenessMs: number;
  readonly now?: () => number;
}

export interface DataVersion {
  current(): Promise<string>;
}

export function createDataVersion(options: DataVersionOptions): DataVersion {
  const now = options.now ?? monotonicMs;
  let latest: { readonly startedAt: number; readonly version: Promise<string> } | undefined;
  return {
    current() {
      const at = now();
      // (a clock that went back reads again too)
      const age = latest === undefined ? Infinity : at - latest.startedAt;
      if (latest === undefined || age > options.maxStalenessMs || age < 0) {
        const version = options.read();
        latest = { startedAt: at, version };
        // A failed read is not remembered: the next request tries again.
        version.catch(() => {
          if (latest?.version === version) latest = undefined;
        });
      }
      return latest.version;
    },
  };
}
