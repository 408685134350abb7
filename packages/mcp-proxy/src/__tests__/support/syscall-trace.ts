/**
 * The file system calls of a process tree as `strace` logs them (Debian's strace, run by the test
 * around the proxy): each call's thread, name, arguments (descriptors with their paths), and when
 * it started and ended, so a test can check the order in which data reached the disk.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";

export const STRACE = "/usr/bin/strace";

/** Why the tests that trace system calls cannot run here, or false when they can. */
export function straceSkipReason(): string | false {
  if (!existsSync(STRACE)) return "install Debian's strace: sudo apt-get install strace";
  const probe = spawnSync(STRACE, ["-f", "-qq", "-o", "/dev/null", "true"]);
  return probe.status === 0 ? false : `strace cannot trace here: ${probe.stderr.toString().trim()}`;
}

/** `strace` and its options, followed by the traced command: flushes, renames and writes of every thread. */
export function straceCommand(logFile: string, command: readonly string[]): string[] {
  return [
    STRACE,
    ...["-f", "-qq", "-y", "-ttt", "-T", "-s", "4096", "-o", logFile],
    ...["-e", "trace=fsync,fdatasync,rename,renameat,renameat2,link,linkat,write"],
    ...command,
  ];
}

export type Syscall = Readonly<{
  thread: number;
  name: string;
  /** As strace prints them: descriptors as `fd</path>`, strings quoted and escaped. */
  args: string;
  /** What it returned: `0`, `-1 EIO (...)`, `?`... */
  result: string;
  /** Seconds since the epoch. */
  start: number;
  end: number;
}>;

// A line starts with the thread id, padded to a width (`9717  1795…` beside `12629 1795…`).
const COMPLETE = /^(\d+) +(\d+\.\d+) (\w+)\((.*)\) += (.*) <(\d+\.\d+)>$/;
const UNFINISHED = /^(\d+) +(\d+\.\d+) (\w+)\((.*) <unfinished \.\.\.>$/;
const RESUMED = /^(\d+) +\d+\.\d+ <\.\.\. (\w+) resumed>(.*)\) += (.*) <(\d+\.\d+)>$/;
/** A signal or an exit, which names no call, or a call its thread's end cut off (no result). */
const NO_CALL = /^\d+ +\d+\.\d+ (---|\+\+\+) |(= \?|<unavailable>)$/;

/** The completed calls of a log, in the order they started. */
export function readSyscalls(logFile: string): Syscall[] {
  const calls: Syscall[] = [];
  const pending = new Map<number, { name: string; args: string; start: number }>();
  const lines = readFileSync(logFile, "utf8").split("\n");
  // The text after the last newline is a line strace is still writing.
  lines.pop();
  for (const line of lines) {
    const complete = COMPLETE.exec(line);
    if (complete !== null) {
      const start = Number(complete[2]);
      calls.push({
        thread: Number(complete[1]),
        name: complete[3]!,
        args: complete[4]!,
        result: complete[5]!,
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
    if (resumed === null) {
      // A line of another shape means the log is not read as written: say so rather than miss calls
      if (line !== "" && !NO_CALL.test(line)) throw new Error(`a strace line not understood: ${line}`);
      continue;
    }
    const begun = pending.get(Number(resumed[1]));
    if (begun !== undefined) {
      pending.delete(Number(resumed[1]));
      calls.push({
        thread: Number(resumed[1]),
        name: begun.name,
        args: begun.args + resumed[3]!,
        result: resumed[4]!,
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

const ESCAPES: Readonly<Record<string, number>> = { n: 10, t: 9, r: 13, v: 11, f: 12, '"': 34, "\\": 92 };

/** A string as strace escapes it (C escapes, other bytes in octal), as UTF-8 text. */
function unescape(escaped: string): string {
  const bytes: number[] = [];
  for (let at = 0; at < escaped.length; at++) {
    if (escaped[at] !== "\\") {
      bytes.push(...Buffer.from(escaped[at]!, "utf8"));
      continue;
    }
    const octal = /^[0-7]{1,3}/.exec(escaped.slice(at + 1))?.[0];
    if (octal !== undefined) {
      bytes.push(parseInt(octal, 8));
      at += octal.length;
    } else {
      const byte = ESCAPES[escaped[at + 1]!];
      if (byte === undefined) throw new Error(`unknown strace escape \\${escaped[at + 1]}`);
      bytes.push(byte);
      at += 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/**
 * The quoted strings among a call's arguments, unescaped (a rename's paths, a write's bytes); a
 * string strace cut short (longer than `-s`) is an error, not a shorter string.
 */
export function quotedArguments(call: Syscall): string[] {
  return [...call.args.matchAll(/"((?:[^"\\]|\\.)*)"(\.\.\.)?/g)].map((match) => {
    if (match[2] !== undefined) throw new Error(`a string cut short by strace: ${call.args.slice(0, 80)}`);
    return unescape(match[1]!);
  });
}

/** A flush, or a rename or hard link (a file given its name: its first argument, then its new name), that succeeded. */
export const isFlush = (call: Syscall): boolean =>
  (call.name === "fsync" || call.name === "fdatasync") && call.result === "0";
export const isNaming = (call: Syscall): boolean =>
  (call.name.startsWith("rename") || call.name.startsWith("link")) && call.result === "0";
