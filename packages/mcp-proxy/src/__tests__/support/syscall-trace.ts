/**
 * The file system calls of a process tree as `strace` logs them (Debian's strace, run by the test
 * around the proxy): each call's thread, name, arguments (descriptors with their paths), and when
 * it started and ended, so a test can check the order in which data reached the disk.
 */
import { existsSync, readFileSync } from "node:fs";

export const STRACE = "/usr/bin/strace";

/** Why the tests that trace system calls cannot run here, or false when they can. */
export function straceSkipReason(): string | false {
  return existsSync(STRACE) ? false : "install Debian's strace: sudo apt-get install strace";
}

/** `strace` and its options, followed by the traced command: flushes, renames and writes of every thread. */
export function straceCommand(logFile: string, command: readonly string[]): string[] {
  return [
    STRACE,
    ...["-f", "-qq", "-y", "-ttt", "-T", "-s", "4096", "-o", logFile],
    ...["-e", "trace=fsync,fdatasync,rename,renameat,renameat2,write"],
    ...command,
  ];
}

export type Syscall = Readonly<{
  thread: number;
  name: string;
  /** As strace prints them: descriptors as `fd</path>`, strings quoted and escaped. */
  args: string;
  /** Seconds since the epoch. */
  start: number;
  end: number;
}>;

const COMPLETE = /^(\d+) (\d+\.\d+) (\w+)\((.*)\) += (-?\d+|\?).*<(\d+\.\d+)>$/;
const UNFINISHED = /^(\d+) (\d+\.\d+) (\w+)\((.*) <unfinished \.\.\.>$/;
const RESUMED = /^(\d+) \d+\.\d+ <\.\.\. (\w+) resumed>(.*)\) += (-?\d+|\?).*<(\d+\.\d+)>$/;

/** The completed calls of a log, in the order they started. */
export function readSyscalls(logFile: string): Syscall[] {
  const calls: Syscall[] = [];
  const pending = new Map<number, { name: string; args: string; start: number }>();
  for (const line of readFileSync(logFile, "utf8").split("\n")) {
    const complete = COMPLETE.exec(line);
    if (complete !== null) {
      const start = Number(complete[2]);
      calls.push({
        thread: Number(complete[1]),
        name: complete[3]!,
        args: complete[4]!,
        start,
        end: start + Number(complete[6]),
      });
      continue;
    }
    const unfinished = UNFINISHED.exec(line);
    if (unfinished !== null) {
      pending.set(Number(unfinished[1]), {
        name: unfinished[3]!,
        args: unfinished[4]!,
        start: Number(unfinished[2]),
      });
      continue;
    }
    const resumed = RESUMED.exec(line);
    const begun = resumed === null ? undefined : pending.get(Number(resumed[1]));
    if (resumed !== null && begun !== undefined) {
      pending.delete(Number(resumed[1]));
      calls.push({
        thread: Number(resumed[1]),
        name: begun.name,
        args: begun.args + resumed[3]!,
        start: begun.start,
        end: begun.start + Number(resumed[5]),
      });
    }
  }
  return calls.sort((a, b) => a.start - b.start);
}

/** The path of the descriptor a call's first argument names (`21</tmp/x>` gives `/tmp/x`). */
export function descriptorPath(call: Syscall): string | undefined {
  return /^\d+<([^>]*)>/.exec(call.args)?.[1];
}

/** The quoted strings among a call's arguments, unescaped (a rename's paths, a write's bytes). */
export function quotedArguments(call: Syscall): string[] {
  return [...call.args.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map(
    (match) => JSON.parse(`"${match[1]!.replace(/\\x([0-9a-f]{2})/g, "\\u00$1")}"`) as string,
  );
}

export const isFlush = (call: Syscall): boolean => call.name === "fsync" || call.name === "fdatasync";
export const isRename = (call: Syscall): boolean => call.name.startsWith("rename");
