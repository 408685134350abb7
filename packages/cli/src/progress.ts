/**
 * Progress on stderr: a cli-progress bar on a terminal, plain lines otherwise (logs, CI, pipes), so
 * stdout keeps only the result.
 */
import cliProgress from "cli-progress";

import type { CliIo } from "./cli-io.js";

export interface Progress {
  /** Sets the count done so far, with what just happened. */
  update(done: number, status: string): void;
  stop(): void;
}

export function createProgress(io: CliIo, label: string, total: number, enabled = true): Progress {
  if (!enabled) return { update: () => {}, stop: () => {} };
  if (io.stderrIsTty) {
    const bar = new cliProgress.SingleBar(
      {
        stream: io.stderr,
        format: `${label} [{bar}] {percentage}% | {value}/{total} | {status}`,
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total, 0, { status: "starting" });
    return {
      update: (done, status) => bar.update(done, { status }),
      stop: () => bar.stop(),
    };
  }
  return {
    update: (done, status) => io.err(`${label}: ${done}/${total}, ${status}`),
    stop: () => {},
  };
}
