/**
 * The calls recorded but not yet receipted, kept in the queue folder: the attestor's queue keeps
 * only each call's hash, and a receipt delivered after a restart is saved with its call read back
 * from here. Written like the queue itself (see `durability`), each line whole, before the call is
 * recorded. A call leaves once its receipt file is written.
 *
 * New calls are appended to `calls.jsonl`. Once it is large it is sealed: renamed to
 * `calls.<n>.jsonl`, and a new `calls.jsonl` started. A sealed file is removed once every call in
 * it has its receipt, so a proxy that runs for weeks does not keep every call it ever forwarded,
 * and no call is ever written twice: the proxy's thread, which forwards the messages, never stops
 * to rewrite calls still waiting, however large they are.
 */
import {
  closeSync,
  constants as fsConstants,
  existsSync,
  fdatasyncSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { join } from "node:path";

import { appendWhole, syncDirectory } from "@abas/sdk/attestor";

import type { ToolCallAction } from "./tool-calls.js";

type CallLine = { actionHash: string; call: ToolCallAction };

export const CALLS_FILE_NAME = "calls.jsonl";

const SEALED_FILE_NAME = /^calls\.([1-9][0-9]*)\.jsonl$/;
const sealedFileName = (segment: number): string => `calls.${segment}.jsonl`;

/** The size at which `calls.jsonl` is sealed. */
const DEFAULT_SEAL_BYTES = 1 << 20;

const toLine = (actionHash: string, call: ToolCallAction): string =>
  `${JSON.stringify({ actionHash, call } satisfies CallLine)}\n`;

function parseLine(line: string): CallLine | undefined {
  try {
    const parsed = JSON.parse(line) as Partial<CallLine> | null;
    return typeof parsed?.actionHash === "string" && typeof parsed.call === "object" && parsed.call !== null
      ? (parsed as CallLine)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The sealed files of a queue folder, oldest first. */
function sealedSegments(queueDir: string): number[] {
  return (
    readdirSync(queueDir)
      .map((name) => SEALED_FILE_NAME.exec(name)?.[1])
      .filter((segment) => segment !== undefined)
      .map(Number)
      // A number past 2^53 - 1 is not the journal's: it counts on from one, exactly.
      .filter((segment) => Number.isSafeInteger(segment))
      .sort((a, b) => a - b)
  );
}

/**
 * Opens a file for appending: every write goes to its end, so a write a full disk cut short and
 * `appendWhole` took back leaves no gap before the next one. `fresh`: emptied first.
 */
const openForAppending = (path: string, fresh: boolean): number =>
  openSync(
    path,
    fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_APPEND | (fresh ? fsConstants.O_TRUNC : 0),
    0o600,
  );

export type CallJournalOptions = Readonly<{
  /**
   * The hashes the attestor's queue still holds (`queuedActionHashes`): the calls a receipt will
   * still come for. The files' other lines are of calls whose receipts were saved before the
   * proxy last stopped without closing it (kill -9), and are not read back.
   */
  queued: ReadonlySet<string>;
  sealBytes?: number;
}>;

export class CallJournal {
  readonly #queueDir: string;
  readonly #fsync: boolean;
  #sealBytes: number;
  /**
   * Each waiting call with the files it is in, one per time it was recorded (two calls identical in
   * everything recorded are one action hash, with a receipt each): `#current` for `calls.jsonl`, a
   * sealed one's number.
   */
  readonly #calls = new Map<string, { call: ToolCallAction; segments: number[] }>();
  /** How many waiting calls each file holds. */
  readonly #waitingIn = new Map<number, number>();
  #current: number;
  #currentBytes = 0;
  #fd: number;

  /**
   * Reads the calls still waiting from every file; a `calls.jsonl` holding any is sealed, and the
   * files holding none are removed. A torn last line (a crash while writing it) is not a call.
   */
  constructor(queueDir: string, durability: "write" | "fsync", options: CallJournalOptions) {
    this.#queueDir = queueDir;
    this.#fsync = durability === "fsync";
    this.#sealBytes = options.sealBytes ?? DEFAULT_SEAL_BYTES;
    const sealed = sealedSegments(queueDir);
    this.#current = (sealed.at(-1) ?? 0) + 1;
    for (const segment of [...sealed, this.#current]) {
      const path = this.#pathOf(segment);
      if (!existsSync(path)) continue;
      for (const line of readFileSync(path, "utf8").split("\n")) {
        const entry = parseLine(line);
        if (entry !== undefined && options.queued.has(entry.actionHash))
          this.#keep(entry.actionHash, entry.call, segment);
      }
    }
    for (const segment of sealed) {
      if (!this.#waitingIn.has(segment)) rmSync(this.#pathOf(segment), { force: true });
    }
    const holdsWaiting = this.#waitingIn.has(this.#current);
    this.#fd = openForAppending(this.#pathOf(this.#current), !holdsWaiting);
    if (holdsWaiting) {
      this.#currentBytes = statSync(this.#pathOf(this.#current)).size;
      this.#seal();
    }
  }

  append(actionHash: string, call: ToolCallAction): void {
    const line = toLine(actionHash, call);
    appendWhole(this.#fd, line);
    if (this.#fsync) fdatasyncSync(this.#fd);
    this.#keep(actionHash, call, this.#current);
    this.#currentBytes += Buffer.byteLength(line);
    if (this.#currentBytes >= this.#sealBytes) this.#seal();
  }

  /**
   * The call of a receipt whose file is about to be written: null when it is not known (its line
   * was lost). It stays until `receiptEnded` says the file is written.
   */
  receiptStarted(actionHash: string): ToolCallAction | null {
    return this.#calls.get(actionHash)?.call ?? null;
  }

  /**
   * The receipt's file was made (`created`: one recording of its call goes), or was there already (a
   * receipt delivered again, whose recording went with its first delivery, or an identical call's),
   * or could not be written (its call stays for the next delivery).
   */
  receiptEnded(actionHash: string, created: boolean): void {
    if (created) this.#drop(actionHash);
  }

  /** A call that was not recorded after all: it gets no receipt (one recording of it goes). */
  forget(actionHash: string): void {
    this.#drop(actionHash);
  }

  /** Closes the file, emptied when every call it held has its receipt. */
  close(): void {
    if (!this.#waitingIn.has(this.#current)) ftruncateSync(this.#fd, 0);
    closeSync(this.#fd);
  }

  #pathOf(segment: number): string {
    return join(this.#queueDir, segment === this.#current ? CALLS_FILE_NAME : sealedFileName(segment));
  }

  /**
   * Renames `calls.jsonl` to its sealed name and starts a new one. When the file system refuses a
   * step (a full disk, no inode left), the open file keeps its name and calls go on being appended
   * to it, sealed at a later call: the calls are recorded all the same.
   */
  #seal(): void {
    const sealed = this.#current;
    // Numbers stay exact (the next one too): past 2^53 - 2 (a name put there by hand), calls stay
    // in calls.jsonl.
    if (sealed >= Number.MAX_SAFE_INTEGER) {
      this.#sealBytes = Infinity;
      return;
    }
    const callsPath = join(this.#queueDir, CALLS_FILE_NAME);
    const sealedPath = join(this.#queueDir, sealedFileName(sealed));
    let fd: number | undefined;
    try {
      renameSync(callsPath, sealedPath);
    } catch {
      return;
    }
    try {
      fd = openForAppending(callsPath, true);
      // Both names on the disk before a call is written to the new file.
      if (this.#fsync) syncDirectory(this.#queueDir);
    } catch {
      if (fd !== undefined) closeSync(fd);
      try {
        renameSync(sealedPath, callsPath);
      } catch {
        // The open file keeps its sealed name, which the next start reads all the same; no more
        // seals, whose rename could put another file in its place.
        this.#sealBytes = Infinity;
      }
      return;
    }
    const previous = this.#fd;
    this.#fd = fd;
    this.#current = sealed + 1;
    this.#currentBytes = 0;
    try {
      closeSync(previous);
      if (!this.#waitingIn.has(sealed)) rmSync(sealedPath, { force: true });
    } catch {
      // A file left behind holds no waiting call: the next start removes it.
    }
  }

  #keep(actionHash: string, call: ToolCallAction, segment: number): void {
    const waiting = this.#calls.get(actionHash);
    if (waiting === undefined) this.#calls.set(actionHash, { call, segments: [segment] });
    else waiting.segments.push(segment);
    this.#waitingIn.set(segment, (this.#waitingIn.get(segment) ?? 0) + 1);
  }

  /** Lets the oldest recording of the call go. */
  #drop(actionHash: string): void {
    const waiting = this.#calls.get(actionHash);
    if (waiting === undefined) return;
    const segment = waiting.segments.shift()!;
    if (waiting.segments.length === 0) this.#calls.delete(actionHash);
    const left = (this.#waitingIn.get(segment) ?? 1) - 1;
    if (left > 0) {
      this.#waitingIn.set(segment, left);
      return;
    }
    this.#waitingIn.delete(segment);
    if (segment !== this.#current) rmSync(this.#pathOf(segment), { force: true });
  }
}
