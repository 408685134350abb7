/**
 * The calls recorded but not yet receipted, kept in `calls.jsonl` in the queue folder: the
 * attestor's queue keeps only each call's hash, and a receipt delivered after a restart is saved
 * with its call read back from here. Written like the queue itself (see `durability`), each line
 * whole, before the call is recorded. A call leaves once its receipt file is written; the file is
 * rewritten with only the calls still waiting once it is large and mostly made of finished ones,
 * so a proxy that runs for weeks does not keep every call it ever forwarded.
 */
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";

import { appendWhole, syncDirectory } from "@abas/sdk/attestor";

import type { ToolCallAction } from "./tool-calls.js";

type CallLine = { actionHash: string; call: ToolCallAction };

export const CALLS_FILE_NAME = "calls.jsonl";

/** The size under which the file is never rewritten. */
const DEFAULT_REWRITE_BYTES = 1 << 20;

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

export type CallJournalOptions = Readonly<{
  /**
   * The hashes the attestor's queue still holds (`queuedActionHashes`): the calls a receipt will
   * still come for. The file's other lines are of calls whose receipts were saved before the
   * proxy last stopped without closing it (kill -9), and are dropped at open.
   */
  queued: ReadonlySet<string>;
  rewriteBytes?: number;
}>;

export class CallJournal {
  readonly #path: string;
  readonly #fsync: boolean;
  readonly #rewriteBytes: number;
  /** Each waiting call with the size of its line. */
  readonly #calls = new Map<string, { call: ToolCallAction; bytes: number }>();
  #waitingBytes = 0;
  #fd: number;
  /** Receipts whose files are being written. */
  #saving = 0;

  constructor(queueDir: string, durability: "write" | "fsync", options: CallJournalOptions) {
    this.#path = join(queueDir, CALLS_FILE_NAME);
    this.#fsync = durability === "fsync";
    this.#rewriteBytes = options.rewriteBytes ?? DEFAULT_REWRITE_BYTES;
    const text = existsSync(this.#path) ? readFileSync(this.#path, "utf8") : "";
    // A torn last line (a crash while writing it) is dropped with the lines of finished calls.
    let dropped = text !== "" && !text.endsWith("\n");
    for (const line of text.split("\n")) {
      if (line === "") continue;
      const entry = parseLine(line);
      if (entry === undefined || !options.queued.has(entry.actionHash)) dropped = true;
      else this.#keep(entry.actionHash, entry.call, Buffer.byteLength(line) + 1);
    }
    if (dropped) this.#writeWaiting();
    this.#fd = openSync(this.#path, "a", 0o600);
  }

  append(actionHash: string, call: ToolCallAction): void {
    const line = toLine(actionHash, call);
    appendWhole(this.#fd, line);
    if (this.#fsync) fdatasyncSync(this.#fd);
    this.#keep(actionHash, call, Buffer.byteLength(line));
  }

  /**
   * The call of a receipt whose file is about to be written: null when it is not known (its line
   * was lost). It stays until `receiptEnded` says the file is written.
   */
  receiptStarted(actionHash: string): ToolCallAction | null {
    this.#saving += 1;
    return this.#calls.get(actionHash)?.call ?? null;
  }

  /** The receipt's file is written, or could not be: then its call stays for the next delivery. */
  receiptEnded(actionHash: string, written: boolean): void {
    this.#saving -= 1;
    if (written) this.#drop(actionHash);
    if (this.#saving > 0) return;
    const size = fstatSync(this.#fd).size;
    if (size >= this.#rewriteBytes && size >= 2 * this.#waitingBytes) {
      closeSync(this.#fd);
      this.#writeWaiting();
      this.#fd = openSync(this.#path, "a", 0o600);
    }
  }

  /** A call that was not recorded after all: it gets no receipt. */
  forget(actionHash: string): void {
    this.#drop(actionHash);
  }

  /** Closes the file, emptied when every call it held has its receipt. */
  close(): void {
    if (this.#calls.size === 0 && this.#saving === 0) ftruncateSync(this.#fd, 0);
    closeSync(this.#fd);
  }

  #keep(actionHash: string, call: ToolCallAction, bytes: number): void {
    this.#drop(actionHash);
    this.#calls.set(actionHash, { call, bytes });
    this.#waitingBytes += bytes;
  }

  #drop(actionHash: string): void {
    const waiting = this.#calls.get(actionHash);
    if (waiting === undefined) return;
    this.#calls.delete(actionHash);
    this.#waitingBytes -= waiting.bytes;
  }

  /** The calls still waiting, written aside and renamed over the file. */
  #writeWaiting(): void {
    const aside = `${this.#path}.tmp`;
    const text = [...this.#calls].map(([actionHash, { call }]) => toLine(actionHash, call)).join("");
    writeFileSync(aside, text, { mode: 0o600, flush: this.#fsync });
    renameSync(aside, this.#path);
    if (this.#fsync) syncDirectory(dirname(this.#path));
  }
}
