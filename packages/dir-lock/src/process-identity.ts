/**
 * Which process holds a directory's lock, said so that another process can tell whether it still runs
 * even when process ids are reused. A process id alone names a different process once its own has
 * ended: in particular a container's entry point is process 1 of every run of the container, and
 * to a restarted container the lock its last run left names itself. On Linux the lock also names
 * the boot, the pid namespace and the process's start time, so that a process id is judged by the
 * process it named, not by whatever process has that id now. Where a process cannot be looked at
 * this way (another pid namespace or boot, or no /proc), the lock's renewals tell (dir-lock.ts).
 */
import { readFileSync, readlinkSync } from "node:fs";

export type ProcessIdentity = Readonly<{
  pid: number;
  /** Linux: the kernel's boot id, the pid namespace's inode number, the start time (clock ticks since boot). */
  boot?: string;
  namespace?: string;
  start?: string;
}>;

/**
 * Whether the process a lock names runs: "unknown" where this process cannot look (see
 * `processState`).
 */
export type ProcessState = "runs" | "gone" | "unknown";

const PID = /^[1-9]\d*$/;
const BOOT = /^[0-9a-f-]{1,64}$/;
const NUMBER = /^\d{1,20}$/;

/**
 * The fields of /proc/<pid>/stat (Linux) from the state on (field 3), read after the command name,
 * which may hold spaces and parentheses; undefined when it cannot be read (the process ended).
 */
export function procStatFields(pid: number | "self"): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** Fields 3 (the state: R, S, Z...) and 22 (the start time) of /proc/<pid>/stat. */
function procStat(pid: number | "self"): { state: string; start: string } | undefined {
  const fields = procStatFields(pid);
  return fields === undefined ? undefined : { state: fields[0]!, start: fields[19]! };
}

/**
 * This process's identity from /proc/self (always this process, whichever pid namespace /proc
 * shows), and whether /proc shows this process's own pid namespace: only then do its files'
 * process ids name the processes `process.kill` reaches, so that another process can be looked at.
 */
function linuxIdentity(): { identity: ProcessIdentity; canLookAtOthers: boolean } {
  const pid = process.pid;
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const namespace = /^pid:\[(\d+)\]$/.exec(readlinkSync("/proc/self/ns/pid"))?.[1];
    const start = procStat("self")?.start;
    if (!BOOT.test(boot) || namespace === undefined || start === undefined || !NUMBER.test(start)) {
      return { identity: { pid }, canLookAtOthers: false };
    }
    return {
      identity: { pid, boot, namespace, start },
      canLookAtOthers: Number(stat.slice(0, stat.indexOf(" "))) === pid,
    };
  } catch {
    return { identity: { pid }, canLookAtOthers: false };
  }
}

let own: { identity: ProcessIdentity; canLookAtOthers: boolean } | undefined;

function self(): { identity: ProcessIdentity; canLookAtOthers: boolean } {
  own ??=
    process.platform === "linux"
      ? linuxIdentity()
      : { identity: { pid: process.pid }, canLookAtOthers: false };
  return own;
}

/** This process's identity (read once). */
export function ownIdentity(): ProcessIdentity {
  return self().identity;
}

/** `<pid>`, or `<pid> <boot> <namespace> <start>` where they are known. */
export function formatIdentity(identity: ProcessIdentity): string {
  const { pid, boot, namespace, start } = identity;
  return boot === undefined ? String(pid) : `${pid} ${boot} ${namespace} ${start}`;
}

/** The identity `formatIdentity` wrote, or undefined for any other text. */
export function parseIdentity(text: string): ProcessIdentity | undefined {
  const [pid, boot, namespace, start, ...rest] = text.split(" ");
  if (!PID.test(pid!) || !Number.isSafeInteger(Number(pid)) || rest.length > 0) return undefined;
  if (boot === undefined) return { pid: Number(pid) };
  if (!BOOT.test(boot) || !NUMBER.test(namespace ?? "") || !NUMBER.test(start ?? "")) return undefined;
  return { pid: Number(pid), boot, namespace, start };
}

/** Whether a process with this id exists (whichever process has the id now). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether the process a lock names still runs: by its id and its start time, where both it and
 * this process are known by boot and pid namespace and they are the same; "unknown" otherwise (a
 * process of another container or boot, a lock that names an id alone, a process that /proc
 * hides from this user), for the lock's renewals to tell.
 */
export function processState(identity: ProcessIdentity): ProcessState {
  const { identity: mine, canLookAtOthers } = self();
  if (identity.boot === undefined || mine.boot === undefined || !canLookAtOthers) return "unknown";
  if (identity.boot !== mine.boot || identity.namespace !== mine.namespace) return "unknown";
  if (!isProcessAlive(identity.pid)) return "gone";
  const stat = procStat(identity.pid);
  if (stat === undefined) return "unknown";
  // A zombie (Z) or dead (X) process has ended; only its parent has not collected it yet.
  return stat.start === identity.start && stat.state !== "Z" && stat.state !== "X" ? "runs" : "gone";
}
