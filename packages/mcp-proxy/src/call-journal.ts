/**
 * The calls recorded but not yet receipted, kept in `calls.jsonl` in the queue folder: the
 * attestor's queue keeps only each call's hash, and a receipt delivered after a restart is saved
 * with its call read back from here. Written like the queue itself (see `durability`), before the
 * call is recorded. Once the file is large it is rewritten with only the calls still waiting for
 * their receipts, so a proxy that runs for weeks does not keep every call it ever forwarded.
 */
import {
  closeSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

import type { ToolCallAction } from "./tool-calls.js";

type CallLine = { actionHash: string; call: ToolCallAction };

/** The size past which the file is rewritten, once no receipt is being saved. */
const DEFAULT_REWRITE_BYTES = 1 << 20;

const toLine = (actionHash: string, call: ToolCallAction): string =>
  `${JSON.stringify({ actionHash, call } satisfies CallLine)}\n`;

export class CallJournal {
  readonly #path: string;
  readonly #fsync: boolean;
  readonly #rewriteBytes: number;
  readonly #calls = new Map<string, ToolCallAction>();
  #fd: number;
  /** Calls handed out by `take` whose receipt files are still being written. */
  #saving = 0;

  constructor(queueDir: string, durability: "write" | "fsync", options: { rewriteBytes?: number } = {}) {
    this.#path = join(queueDir, "calls.jsonl");
    this.#fsync = durability === "fsync";
    this.#rewriteBytes = options.rewriteBytes ?? DEFAULT_REWRITE_BYTES;
    this.#fd = openSync(this.#path, "a+", 0o600);
    for (const line of readFileSync(this.#path, "utf8").split("\n")) {
      try {
        const { actionHash, call } = JSON.parse(line) as CallLine;
        this.#calls.set(actionHash, call);
      } catch {
        // An empty line, or the torn last line of a crash: that call's receipt is saved without it.
      }
    }
  }

  append(actionHash: string, call: ToolCallAction): void {
    writeSync(this.#fd, toLine(actionHash, call));
    if (this.#fsync) fdatasyncSync(this.#fd);
    this.#calls.set(actionHash, call);
  }

  /**
   * The call of a receipt, once: null when it is not known. Its line stays in the file until
   * `saved` says the receipt file is written, so a crash meanwhile finds it again.
   */
  take(actionHash: string): ToolCallAction | null {
    const call = this.#calls.get(actionHash) ?? null;
    this.#calls.delete(actionHash);
    this.#saving += 1;
    return call;
  }

  /** The receipt of a call `take` gave is written (or could not be). */
  saved(): void {
    this.#saving -= 1;
    if (this.#saving === 0 && fstatSync(this.#fd).size >= this.#rewriteBytes) this.#rewrite();
  }

  /** A call that was not recorded after all: it gets no receipt. */
  forget(actionHash: string): void {
    this.#calls.delete(actionHash);
  }

  /** Closes the file, emptied when every call it held has its receipt. */
  close(): void {
    if (this.#calls.size === 0 && this.#saving === 0) ftruncateSync(this.#fd, 0);
    closeSync(this.#fd);
  }

  /** The calls still waiting for receipts, written aside and renamed over the file. */
  #rewrite(): void {
    const aside = `${this.#path}.tmp`;
    const text = [...this.#calls].map(([actionHash, call]) => toLine(actionHash, call)).join("");
    writeFileSync(aside, text, { mode: 0o600, flush: this.#fsync });
    renameSync(aside, this.#path);
    if (this.#fsync) {
      const directory = openSync(join(this.#path, ".."), "r");
      try {
        fsyncSync(directory);
      } finally {
        closeSync(directory);
      }
    }
    closeSync(this.#fd);
    this.#fd = openSync(this.#path, "a+", 0o600);
  }
}
