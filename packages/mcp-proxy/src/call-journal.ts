/**
 * The calls recorded but not yet receipted, kept in `calls.jsonl` in the queue folder: the
 * attestor's queue keeps only each call's hash, and a receipt delivered after a restart is saved
 * with its call read back from here. Written like the queue itself (see `durability`), before the
 * call is recorded.
 */
import { closeSync, fdatasyncSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";

import type { ToolCallAction } from "./tool-calls.js";

type CallLine = { actionHash: string; call: ToolCallAction };

export class CallJournal {
  readonly #fd: number;
  readonly #fsync: boolean;
  readonly #calls = new Map<string, ToolCallAction>();

  constructor(queueDir: string, durability: "write" | "fsync") {
    const path = join(queueDir, "calls.jsonl");
    this.#fsync = durability === "fsync";
    this.#fd = openSync(path, "a+", 0o600);
    for (const line of readFileSync(path, "utf8").split("\n")) {
      try {
        const { actionHash, call } = JSON.parse(line) as CallLine;
        this.#calls.set(actionHash, call);
      } catch {
        // An empty line, or the torn last line of a crash: that call's receipt is saved without it.
      }
    }
  }

  append(actionHash: string, call: ToolCallAction): void {
    writeSync(this.#fd, `${JSON.stringify({ actionHash, call } satisfies CallLine)}\n`);
    if (this.#fsync) fdatasyncSync(this.#fd);
    this.#calls.set(actionHash, call);
  }

  /** The call of a receipt, once: null when it is not known. */
  take(actionHash: string): ToolCallAction | null {
    const call = this.#calls.get(actionHash) ?? null;
    this.#calls.delete(actionHash);
    return call;
  }

  /** Closes the file, emptied when every call it held has its receipt. */
  close(): void {
    if (this.#calls.size === 0) ftruncateSync(this.#fd, 0);
    closeSync(this.#fd);
  }
}
