/**
 * The attestor's on-disk queue: one append-only file of JSON lines. An action line is written
 * before `record` returns; a batch line fixes which actions form a batch before anything is sent,
 * so a restart sends exactly the same batch (same items, salts and so Merkle root) again; a done
 * line closes a batch once its root and every leaf are on the ledger.
 */
import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";

import { lockFileRemains, type DirectoryLock, type LockFileId } from "@abas/dir-lock";
import {
  ABAS_SDK__ATTESTOR_QUEUE_CORRUPT,
  ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER,
  AbasError,
} from "@abas/errors";

import { appendWhole } from "./append-whole.js";

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

const HEX_64 = /^[0-9a-f]{64}$/;
const isId = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;
const isIdList = (value: unknown): value is number[] => Array.isArray(value) && value.every(isId);

/** A line as the queue writes it, every value checked: a line edited or damaged into another shape is not one. */
function isJournalLine(entry: Record<string, unknown>): boolean {
  if ("a" in entry) {
    const privacy = entry.p === 1;
    return (
      isId(entry.a) &&
      typeof entry.h === "string" &&
      HEX_64.test(entry.h) &&
      Number.isInteger(entry.t) &&
      (entry.t as number) >= 0 &&
      (entry.t as number) <= 255 &&
      (entry.p === 0 || privacy) &&
      (privacy ? typeof entry.s === "string" && HEX_64.test(entry.s) : entry.s === undefined)
    );
  }
  if ("b" in entry) return isId(entry.b) && isIdList(entry.ids) && entry.ids.length > 0;
  if ("d" in entry) return isId(entry.d);
  if ("v" in entry) return isId(entry.v) && isIdList(entry.drop);
  return false;
}

function parseJournalLine(text: string): JournalLine | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
    const entry = value as Record<string, unknown>;
    return isJournalLine(entry) ? (entry as JournalLine) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The queue file's text. An attestor that lost the queue while paused may still cut the file to
 * nothing (it does so only when all it holds is done) in the middle of the read: then it is read again.
 */
function readWhole(queueFile: string): string {
  let text = "";
  for (let attempt = 0; attempt < 3; attempt++) {
    if (!existsSync(queueFile)) return "";
    text = readFileSync(queueFile, "utf8");
    if (statSync(queueFile).size >= Buffer.byteLength(text)) return text;
  }
  return text;
}

/** Replays the file. A torn last line (the process died while writing it) is dropped. */
export function readQueueBacklog(queueFile: string): QueueBacklog {
  const text = readWhole(queueFile);
  const lines = text.split("\n");
  // The text after the last newline was never a complete line: its record call did not return.
  lines.pop();
  const actions = new Map<number, QueuedAction>();
  const batches = new Map<number, QueuedBatch>();
  const batched = new Set<number>();
  const done = new Set<number>();
  let nextActionId = 1;
  let nextBatchId = 1;
  lines.forEach((line, index) => {
    const corrupt = (reason: string) =>
      new AbasError(ABAS_SDK__ATTESTOR_QUEUE_CORRUPT, { queueFile, line: index + 1, reason });
    const entry = parseJournalLine(line);
    if (entry === undefined) throw corrupt("not a queue entry");
    // A line may come again under its id (written, then its flush failed, so its caller was told it
    // was not recorded, and it was written anew): the last one counts.
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
      for (const id of batches.get(entry.b)?.actionIds ?? []) batched.delete(id);
      // An action is in one open batch at a time: a line that says otherwise (a damaged digit)
      // would have the same action attested twice, or another left out, if it were read.
      const twice = entry.ids.find((id, at) => batched.has(id) || entry.ids.indexOf(id) !== at);
      if (twice !== undefined) throw corrupt(`action ${twice} would be in two open batches at once`);
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

/**
 * The hashes of the actions a queue directory still holds: recorded and not yet in a batch, or in
 * a batch not closed (whose receipts are still to be delivered).
 */
export function queuedActionHashes(queueDir: string): Set<string> {
  const backlog = readQueueBacklog(join(queueDir, QUEUE_FILE_NAME));
  const actions = [...backlog.unbatched, ...backlog.openBatches.flatMap((open) => open.actions)];
  return new Set(actions.map((action) => action.actionHash));
}

/** Makes a rename or a new file in `dir` durable. */
export function syncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The second name `open` gives the queue file before reading it. One left by an open that did not
 * finish is removed (the queue file holds everything); should the queue file be missing, it is
 * the queue file.
 */
function fenceEarlierWriters(queueFile: string, secondName: string): void {
  if (existsSync(secondName)) {
    if (existsSync(queueFile)) rmSync(secondName, { force: true });
    else renameSync(secondName, queueFile);
  }
  // A new queue has no file, and so no one writing to it; what is not a file is refused by the reading.
  if (lstatSync(queueFile, { throwIfNoEntry: false })?.isFile()) linkSync(queueFile, secondName);
}

/**
 * The queue file of a directory, opened for appending. Opening rewrites it with only what is
 * still to do (to a temporary file, then renamed), so it does not grow without end.
 */
export class QueueJournal {
  readonly #fd: number;
  readonly #durability: QueueDurability;
  readonly #lock: LockFileId;
  #unsynced = false;

  private constructor(fd: number, durability: QueueDurability, lock: LockFileId) {
    this.#fd = fd;
    this.#durability = durability;
    this.#lock = lock;
  }

  /** The file descriptor, for `attach` on the sender's thread (threads of a process share descriptors). */
  get fd(): number {
    return this.#fd;
  }

  /**
   * The same open file, for the attestor's sender thread: it appends batch lines and flushes the
   * file; the opening thread appends the rest and closes it, after the sender has stopped. Each
   * line is one `write` to a file opened for appending, so lines of the two threads never mix.
   */
  static attach(fd: number, durability: QueueDurability, lock: LockFileId): QueueJournal {
    return new QueueJournal(fd, durability, lock);
  }

  /**
   * Opens the queue file of a directory whose lock this process holds, once the lock files below
   * its own are removed: an attestor still writing to the file (one whose process was paused while
   * this one took the queue over) counts a line only while its own lock file is there
   * (`isTakenOver`), so every line it counted is in what this reads. The file is also given a
   * second name before it is read, which such an attestor sees too. Rewritten copies left by
   * earlier opens are removed (one being written by an opener that lost the lock meanwhile then
   * cannot take the queue file's name), and `lock` is asked again before the copy takes it.
   */
  static open(
    queueDir: string,
    durability: QueueDurability,
    lock: DirectoryLock,
  ): { journal: QueueJournal; backlog: QueueBacklog } {
    const queueFile = join(queueDir, QUEUE_FILE_NAME);
    const secondName = `${queueFile}.prev`;
    fenceEarlierWriters(queueFile, secondName);
    const backlog = readQueueBacklog(queueFile);
    const compacted = [
      ...backlog.openBatches.flatMap(({ batch, actions }) => [
        ...actions.map((action) => toLine(actionLine(action))),
        toLine({ b: batch.id, ids: [...batch.actionIds] }),
      ]),
      ...backlog.unbatched.map((action) => toLine(actionLine(action))),
    ].join("");
    for (const name of readdirSync(queueDir)) {
      if (name.startsWith(`${QUEUE_FILE_NAME}.tmp`)) rmSync(join(queueDir, name), { force: true });
    }
    // The journal stays on the file written here, not on whatever file has the queue file's name
    // by the time it is opened (a later owner's, should this one lose the lock meanwhile).
    const temporaryFile = `${queueFile}.tmp.${process.pid}.${Math.random().toString(36).slice(2)}`;
    // The owner's alone: in privacy mode a line holds the action's hash and its salt, the secrets
    // behind the commitment the ledger holds.
    const fd = openSync(temporaryFile, "ax", 0o600);
    try {
      writeFileSync(fd, compacted);
      fdatasyncSync(fd);
      if (!lock.isHeld()) throw new AbasError(ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER, { queueDir });
      renameSync(temporaryFile, queueFile);
    } catch (error) {
      closeSync(fd);
      rmSync(temporaryFile, { force: true });
      throw error;
    }
    rmSync(secondName, { force: true });
    syncDirectory(queueDir);
    const journal = new QueueJournal(fd, durability, lock.id);
    return { journal, backlog };
  }

  /** Appends the action; with "fsync" durability it is on the disk when this returns. */
  appendAction(action: QueuedAction): void {
    this.#append(toLine(actionLine(action)), this.#durability === "fsync");
  }

  /** Fixes a batch's actions, always flushed to the disk: it must exist before the batch is sent. */
  appendBatch(batch: QueuedBatch): void {
    this.#append(toLine({ b: batch.id, ids: [...batch.actionIds] }), true);
  }

  /**
   * Voids a batch the program refused as a whole (see JournalLine). Throws only when the line is
   * not in the file: once written it counts, as a replay reads it, so a flush that fails is left
   * to the next `sync`.
   */
  appendBatchVoided(batchId: number, droppedIds: readonly number[]): void {
    this.#append(toLine({ v: batchId, drop: [...droppedIds] }), false);
    try {
      this.sync();
    } catch {
      // Still unsynced: the next sync flushes it.
    }
  }

  appendBatchDone(batchId: number): void {
    this.#append(toLine({ d: batchId }), false);
  }

  /** Empties the file: only when nothing is queued or in flight, so it holds nothing still to do. */
  truncate(): void {
    ftruncateSync(this.#fd, 0);
    fdatasyncSync(this.#fd);
    this.#unsynced = false;
  }

  /**
   * Whether another attestor took the queue over: it removed this one's lock file before reading
   * the queue file, or has given the file another name (see `open`). A line written then may not
   * be read by the new owner, and must not count: asked after every line that counts.
   */
  isTakenOver(): boolean {
    return fstatSync(this.#fd).nlink !== 1 || !lockFileRemains(this.#lock);
  }

  /** The file's size in bytes. */
  size(): number {
    return fstatSync(this.#fd).size;
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
    appendWhole(this.#fd, line);
    if (flush) {
      fdatasyncSync(this.#fd);
      this.#unsynced = false;
    } else {
      this.#unsynced = true;
    }
  }
}
