/**
 * The attestor's on-disk queue: one file of JSON lines. An action line is written before `record`
 * returns; a batch line fixes which actions form a batch before anything is sent, so a restart
 * sends exactly the same batch (same items, salts and so Merkle root) again; a done line closes a
 * batch once its root and every leaf are on the ledger.
 *
 * The file is kept zero-filled ahead of its last line (see `QueueSpace`), and each line is written
 * at a place reserved for it: a flush then writes data only, while flushing a line appended at
 * the end of a file must also commit the file's new size to the file system's journal, which
 * costs most of the flush's time.
 */
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

import { ABAS_SDK__ATTESTOR_QUEUE_CORRUPT, AbasError } from "@abas/errors";

/** One recorded action as the queue keeps it: everything needed to rebuild its leaf. */
export type QueuedAction = Readonly<{
  id: number;
  /** 64 hex characters. */
  actionHash: string;
  actionType: number;
  privacyMode: boolean;
  /** Privacy mode only: the salt chosen at record time, 64 hex characters. */
  salt?: string;
}>;

/** A batch cut from the queue: its actions in leaf order. */
export type QueuedBatch = Readonly<{ id: number; actionIds: readonly number[] }>;

/** What a queue still has to do, read back from its file. */
export type QueueBacklog = Readonly<{
  /** Actions in no batch yet, in the order they were recorded. */
  unbatched: QueuedAction[];
  /** Batches without a done line, each with its actions. */
  openBatches: Array<{ batch: QueuedBatch; actions: QueuedAction[] }>;
  nextActionId: number;
  nextBatchId: number;
}>;

/**
 * When `record` returns: "fsync" (default) after the action line is flushed to the disk, so it
 * survives a power loss; "write" once the line is in the operating system's file cache, which a
 * killed or crashed process cannot lose (the file is then flushed at least every `syncIntervalMs`).
 */
export type QueueDurability = "fsync" | "write";

/**
 * An action; a batch cut (its actions in leaf order); a batch done; a batch voided (`v`): the
 * program refused it as a whole, so it was never recorded; its actions in `drop` are refused for
 * good and the others are back in the queue, to be batched again by a later line.
 */
type JournalLine =
  | { a: number; h: string; t: number; p: 0 | 1; s?: string }
  | { b: number; ids: number[] }
  | { d: number }
  | { v: number; drop: number[] };

export const QUEUE_FILE_NAME = "queue.jsonl";

function toLine(entry: JournalLine): string {
  return `${JSON.stringify(entry)}\n`;
}

function actionLine(action: QueuedAction): JournalLine {
  return {
    a: action.id,
    h: action.actionHash,
    t: action.actionType,
    p: action.privacyMode ? 1 : 0,
    ...(action.salt === undefined ? {} : { s: action.salt }),
  };
}

function parseJournalLine(text: string): JournalLine | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== "object" || value === null) return undefined;
    const entry = value as Record<string, unknown>;
    if (typeof entry.a === "number" && typeof entry.h === "string" && typeof entry.t === "number")
      return entry as JournalLine;
    if (typeof entry.b === "number" && Array.isArray(entry.ids)) return entry as JournalLine;
    if (typeof entry.d === "number") return entry as JournalLine;
    if (typeof entry.v === "number" && Array.isArray(entry.drop)) return entry as JournalLine;
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * The file's complete lines, in order. The text after the last newline was never a complete line:
 * its record call did not return. Zero bytes are space no line was written to: reserved by a
 * call that never wrote (the process died), or not written to the disk when the power went, so
 * the text before the last zero of a line's text belongs to no complete line and is dropped; the
 * text after it is a line of its own only if it reads as one (the tail of a torn line does not).
 */
function completeLines(queueFile: string): Array<{ text: string; afterGap: boolean }> {
  const text = existsSync(queueFile) ? readFileSync(queueFile, "utf8") : "";
  const lines = text.split("\n");
  lines.pop();
  return lines.map((line) => {
    const gapEnd = line.lastIndexOf("\0");
    return gapEnd === -1 ? { text: line, afterGap: false } : { text: line.slice(gapEnd + 1), afterGap: true };
  });
}

/** Replays the file. A torn line (the process died while writing it) is dropped. */
export function readQueueBacklog(queueFile: string): QueueBacklog {
  const lines = completeLines(queueFile);
  const actions = new Map<number, QueuedAction>();
  const batches = new Map<number, QueuedBatch>();
  const batched = new Set<number>();
  const done = new Set<number>();
  let nextActionId = 1;
  let nextBatchId = 1;
  lines.forEach(({ text, afterGap }, index) => {
    const entry = parseJournalLine(text);
    if (entry === undefined && afterGap) return;
    if (entry === undefined) {
      throw new AbasError(ABAS_SDK__ATTESTOR_QUEUE_CORRUPT, {
        queueFile,
        line: index + 1,
        reason: "not a queue entry",
      });
    }
    if ("a" in entry) {
      actions.set(entry.a, {
        id: entry.a,
        actionHash: entry.h,
        actionType: entry.t,
        privacyMode: entry.p === 1,
        ...(entry.s === undefined ? {} : { salt: entry.s }),
      });
      nextActionId = Math.max(nextActionId, entry.a + 1);
    } else if ("b" in entry) {
      batches.set(entry.b, { id: entry.b, actionIds: entry.ids });
      for (const id of entry.ids) batched.add(id);
      nextBatchId = Math.max(nextBatchId, entry.b + 1);
    } else if ("d" in entry) {
      done.add(entry.d);
    } else {
      for (const id of batches.get(entry.v)?.actionIds ?? []) batched.delete(id);
      for (const id of entry.drop) actions.delete(id);
      batches.delete(entry.v);
    }
  });
  const actionOf = (id: number, batchId: number): QueuedAction => {
    const action = actions.get(id);
    if (action !== undefined) return action;
    throw new AbasError(ABAS_SDK__ATTESTOR_QUEUE_CORRUPT, {
      queueFile,
      line: lines.length,
      reason: `batch ${batchId} names action ${id}, which the queue does not hold`,
    });
  };
  return {
    unbatched: [...actions.values()].filter((action) => !batched.has(action.id)),
    openBatches: [...batches.values()]
      .filter((batch) => !done.has(batch.id))
      .map((batch) => ({ batch, actions: batch.actionIds.map((id) => actionOf(id, batch.id)) })),
    nextActionId,
    nextBatchId,
  };
}

/** Makes a rename or a new file in `dir` durable. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** How much zero-filled space the file gets at a time. */
export const QUEUE_SPACE_STEP_BYTES = 1 << 20;

/**
 * Where the next line goes and how far the file is zero-filled, shared by the threads that write
 * the file: each line gets its own place (so lines of two threads never mix), and the file is
 * zero-filled further, under a lock, before a line is written past its zero-filled part.
 */
class QueueSpace {
  static readonly #END = 0;
  static readonly #FILLED = 1;
  readonly #fd: number;
  readonly #offsets: BigInt64Array;
  readonly #lock: Int32Array;

  constructor(
    readonly shared: SharedArrayBuffer,
    fd: number,
  ) {
    this.#fd = fd;
    this.#offsets = new BigInt64Array(shared, 0, 2);
    this.#lock = new Int32Array(shared, 16, 1);
  }

  static create(fd: number, end: number, filled: number): QueueSpace {
    const space = new QueueSpace(new SharedArrayBuffer(24), fd);
    Atomics.store(space.#offsets, QueueSpace.#END, BigInt(end));
    Atomics.store(space.#offsets, QueueSpace.#FILLED, BigInt(filled));
    return space;
  }

  get end(): number {
    return Number(Atomics.load(this.#offsets, QueueSpace.#END));
  }

  /** Reserves `length` bytes for a line, in zero-filled space, and returns where they start. */
  reserve(length: number): number {
    const offset = Number(Atomics.add(this.#offsets, QueueSpace.#END, BigInt(length)));
    this.fill(offset + length);
    return offset;
  }

  /** Zero-fills the file (in steps, each flushed) until it holds `needed` bytes. */
  fill(needed: number): void {
    if (Number(Atomics.load(this.#offsets, QueueSpace.#FILLED)) >= needed) return;
    this.#locked(() => {
      let filled = Number(Atomics.load(this.#offsets, QueueSpace.#FILLED));
      while (filled < needed) {
        writeFully(this.#fd, Buffer.alloc(QUEUE_SPACE_STEP_BYTES), filled);
        fdatasyncSync(this.#fd);
        filled += QUEUE_SPACE_STEP_BYTES;
        Atomics.store(this.#offsets, QueueSpace.#FILLED, BigInt(filled));
      }
    });
  }

  /** Empties the file and zero-fills its first step again. */
  reset(): void {
    this.#locked(() => {
      ftruncateSync(this.#fd, 0);
      fdatasyncSync(this.#fd);
      Atomics.store(this.#offsets, QueueSpace.#END, 0n);
      Atomics.store(this.#offsets, QueueSpace.#FILLED, 0n);
    });
    this.fill(QUEUE_SPACE_STEP_BYTES);
  }

  #locked(work: () => void): void {
    while (Atomics.compareExchange(this.#lock, 0, 0, 1) !== 0) Atomics.wait(this.#lock, 0, 1);
    try {
      work();
    } finally {
      Atomics.store(this.#lock, 0, 0);
      Atomics.notify(this.#lock, 0);
    }
  }
}

function writeFully(fd: number, bytes: Uint8Array, offset: number): void {
  let written = 0;
  while (written < bytes.length) {
    written += writeSync(fd, bytes, written, bytes.length - written, offset + written);
  }
}

/** What the sender thread needs to write to the queue the recording thread opened. */
export type SharedQueueJournal = Readonly<{ fd: number; space: SharedArrayBuffer }>;

/**
 * The queue file of a directory, open for writing. Opening rewrites it with only what is still to
 * do (to a temporary file, then renamed), so it does not grow without end.
 */
export class QueueJournal {
  readonly #fd: number;
  readonly #space: QueueSpace;
  readonly #durability: QueueDurability;
  #unsynced = false;

  private constructor(fd: number, space: QueueSpace, durability: QueueDurability) {
    this.#fd = fd;
    this.#space = space;
    this.#durability = durability;
  }

  /** For `attach` on the sender's thread (threads of a process share descriptors and shared memory). */
  get shared(): SharedQueueJournal {
    return { fd: this.#fd, space: this.#space.shared };
  }

  /**
   * The same open file, for the attestor's sender thread: it writes batch lines and flushes the
   * file; the opening thread writes the rest and closes it, after the sender has stopped.
   */
  static attach(shared: SharedQueueJournal, durability: QueueDurability): QueueJournal {
    return new QueueJournal(shared.fd, new QueueSpace(shared.space, shared.fd), durability);
  }

  static open(
    queueDir: string,
    durability: QueueDurability,
  ): { journal: QueueJournal; backlog: QueueBacklog } {
    const queueFile = join(queueDir, QUEUE_FILE_NAME);
    const backlog = readQueueBacklog(queueFile);
    const compacted = Buffer.from(
      [
        ...backlog.openBatches.flatMap(({ batch, actions }) => [
          ...actions.map((action) => toLine(actionLine(action))),
          toLine({ b: batch.id, ids: [...batch.actionIds] }),
        ]),
        ...backlog.unbatched.map((action) => toLine(actionLine(action))),
      ].join(""),
    );
    const filled = (Math.floor(compacted.length / QUEUE_SPACE_STEP_BYTES) + 1) * QUEUE_SPACE_STEP_BYTES;
    const temporaryFile = `${queueFile}.tmp`;
    const file = Buffer.alloc(filled);
    compacted.copy(file);
    writeFileSync(temporaryFile, file, { flush: true });
    renameSync(temporaryFile, queueFile);
    syncDirectory(queueDir);
    const fd = openSync(queueFile, "r+");
    const space = QueueSpace.create(fd, compacted.length, filled);
    return { journal: new QueueJournal(fd, space, durability), backlog };
  }

  /** Writes the action; with "fsync" durability it is on the disk when this returns. */
  appendAction(action: QueuedAction): void {
    this.#append(toLine(actionLine(action)), this.#durability === "fsync");
  }

  /**
   * Fixes a batch's actions, always flushed to the disk: it must exist before the batch is sent.
   * Then zero-fills the file ahead while it is more than half full, so that the recording thread
   * seldom has to.
   */
  appendBatch(batch: QueuedBatch): void {
    this.#append(toLine({ b: batch.id, ids: [...batch.actionIds] }), true);
    this.#space.fill(this.#space.end + QUEUE_SPACE_STEP_BYTES / 2);
  }

  /** Voids a batch the program refused as a whole (see JournalLine), flushed to the disk. */
  appendBatchVoided(batchId: number, droppedIds: readonly number[]): void {
    this.#append(toLine({ v: batchId, drop: [...droppedIds] }), true);
  }

  appendBatchDone(batchId: number): void {
    this.#append(toLine({ d: batchId }), false);
  }

  /** Empties the file: only when nothing is queued or in flight, so it holds nothing still to do. */
  truncate(): void {
    this.#space.reset();
    this.#unsynced = false;
  }

  /** The bytes of lines written to the file. */
  size(): number {
    return this.#space.end;
  }

  /** Lines the other thread wrote without flushing them: the next `sync` flushes the file. */
  noteUnsynced(): void {
    this.#unsynced = true;
  }

  /** Flushes what "write" durability or a done line left in the file cache. */
  sync(): void {
    if (!this.#unsynced) return;
    fdatasyncSync(this.#fd);
    this.#unsynced = false;
  }

  close(): void {
    this.sync();
    closeSync(this.#fd);
  }

  #append(line: string, flush: boolean): void {
    const bytes = Buffer.from(line);
    writeFully(this.#fd, bytes, this.#space.reserve(bytes.length));
    if (flush) {
      fdatasyncSync(this.#fd);
      this.#unsynced = false;
    } else {
      this.#unsynced = true;
    }
  }
}
