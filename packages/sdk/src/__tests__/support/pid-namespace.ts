import { spawnSync } from "node:child_process";

/**
 * Why a pid namespace cannot be made here (`unshare` is missing, or not allowed: it needs root or
 * user namespaces), for a test's skip; false when it can.
 */
export function pidNamespaceSkip(): string | false {
  const probe = spawnSync("unshare", ["--pid", "--fork", "--mount-proc", "true"]);
  return probe.status === 0
    ? false
    : `unshare --pid cannot run here (${probe.error?.message ?? probe.stderr.toString().trim()})`;
}
