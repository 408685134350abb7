import { spawn, spawnSync, type ChildProcessByStdio, type SpawnOptions } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Readable } from "node:stream";

const UNSHARE = ["--pid", "--fork", "--mount-proc"];

/**
 * Why a pid namespace cannot be made here (`unshare` is missing, or not allowed: it needs root or
 * user namespaces), for a test's skip; false when it can.
 */
export function pidNamespaceSkip(): string | false {
  const probe = spawnSync("unshare", [...UNSHARE, "true"]);
  return probe.status === 0
    ? false
    : `unshare --pid cannot run here (${probe.error?.message ?? probe.stderr.toString().trim()})`;
}

export interface NamespacedProcess {
  /** `unshare`, which waits for the process and exits after it. */
  readonly child: ChildProcessByStdio<null, Readable, null>;
  /** Sends the process a signal: SIGKILL (the default) ends its whole namespace, as process 1's end does. */
  kill(signal?: NodeJS.Signals): void;
}

/**
 * Runs a command as process 1 of a new pid namespace, as a container's entry point runs, with
 * its stdout piped and its stderr inherited.
 */
export function spawnInNewPidNamespace(
  command: readonly string[],
  options: Pick<SpawnOptions, "env"> = {},
): NamespacedProcess {
  const child = spawn("unshare", [...UNSHARE, ...command], {
    ...options,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return {
    child,
    kill: (signal = "SIGKILL") => {
      // unshare forks the command: the process to kill is its child, as this namespace sees it.
      let pid: number;
      try {
        pid = Number(
          readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim().split(" ")[0],
        );
      } catch {
        return; // unshare has ended, and the process with it
      }
      if (pid > 0) process.kill(pid, signal);
    },
  };
}

/** An ES module script (TypeScript imports allowed) run by Node as process 1 of a new pid namespace. */
export function spawnScriptInNewPidNamespace(script: string): NamespacedProcess {
  return spawnInNewPidNamespace([process.execPath, "--import", "tsx", "--input-type=module", "-e", script]);
}
