/**
 * The receipts folder: one `<action hash>.json` file per recorded action (a tool call, for the
 * proxy), holding the action's payload itself and its receipt, everything needed to check later
 * that the action is what the ledger attests (`verifyReceiptFile`). A file is written once, whole
 * (written aside, then renamed), so a receipt delivered again after a restart replaces it with the
 * same content, never a second file, and never a file that has the call with one that has not.
 * With `flush`, the file and its entry in the folder are on the disk when the write returns.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { link, mkdir, open, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

import {
  ABAS_SDK__CANNOT_CANONICALIZE,
  ABAS_SDK__RECEIPT_CALL_MISMATCH,
  ABAS_SDK__RECEIPT_FILE_UNREADABLE,
  ABAS_SDK__RECEIPT_VERIFICATION_FAILED,
  ABAS_SDK__RECEIPTS_FOLDER_NOT_FOUND,
  AbasError,
  isAbasError,
} from "@abas/errors";
import {
  canonicalize,
  hashAction,
  jsonAmbiguity,
  verifyReceipt,
  type BatchItemReceipt,
  type VerifyReceiptOptions,
} from "@abas/sdk";

import type { RecordedToolCall } from "./tool-calls.js";

/**
 * The payload an action hash is the hash of: a tool call (`RecordedToolCall`) for the proxy and
 * the framework adapters' tool executions, any JSON object for other actions (a model invocation,
 * a decision). Read back from a file, so each field is checked before it is used.
 */
export type KeptAction = RecordedToolCall | Readonly<Record<string, unknown>>;

export type ReceiptFile = Readonly<{
  /** The recorded action; null when it was lost (a crash between recording and its journal line). */
  call: KeptAction | null;
  receipt: BatchItemReceipt;
}>;

export type ReceiptFileEntry = ReceiptFile & Readonly<{ file: string }>;

export function receiptFilePath(folder: string, actionHash: string): string {
  return join(folder, `${actionHash}.json`);
}

let asideFiles = 0;

/** Flushes a file's data, or a folder's entries (a rename into it, a file made in it), to the disk. */
async function flushPath(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Flushes of one folder's entries, shared: a flush asked for while another runs starts once that
 * one ends and answers every request made meanwhile, so the receipts of a batch, renamed together,
 * cost a few folder flushes rather than one each. A request is only answered by a flush that
 * started after it was made, so after the rename that preceded it.
 */
export class FolderFlusher {
  #running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;

  constructor(
    readonly folder: string,
    /** Flushes the folder once (the file system's own, unless a test drives it). */
    private readonly syncFolder: (folder: string) => Promise<void> = flushPath,
  ) {}

  flush(): Promise<void> {
    if (this.#queued !== undefined) return this.#queued;
    if (this.#running === undefined) return this.#start();
    const queued = this.#running
      .catch(() => {})
      .then(() => {
        this.#queued = undefined;
        return this.#start();
      });
    this.#queued = queued;
    return queued;
  }

  #start(): Promise<void> {
    const running = this.syncFolder(this.folder).finally(() => {
      if (this.#running === running) this.#running = undefined;
    });
    this.#running = running;
    return running;
  }
}

const folderFlushers = new Map<string, FolderFlusher>();

function flushFolder(folder: string): Promise<void> {
  let flusher = folderFlushers.get(folder);
  if (flusher === undefined) folderFlushers.set(folder, (flusher = new FolderFlusher(folder)));
  return flusher.flush();
}

export type WriteReceiptOptions = Readonly<{
  /**
   * Flush the file and its folder entry to the disk before returning ("fsync" durability): the
   * caller then lets the call go from its journal and closes the batch, so a power loss must not
   * take the file back.
   */
  flush?: boolean;
}>;

/**
 * What the file at `path` holds for `receipt`: this item's receipt ("item"), another item's
 * ("other"), nothing ("none"), or something that is not a receipt file, a link to nothing or a
 * loop of links included ("unreadable"). A file that cannot be read (a folder, no descriptor left)
 * is an error: a receipt written in its place could take another item's.
 */
async function heldAt(
  path: string,
  receipt: BatchItemReceipt,
): Promise<"item" | "other" | "none" | "unreadable"> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") return "unreadable";
    if (code !== "ENOENT") throw error;
    return lstatSync(path, { throwIfNoEntry: false }) === undefined ? "none" : "unreadable";
  }
  let held: unknown;
  try {
    held = JSON.parse(text);
  } catch {
    return "unreadable";
  }
  const heldReceipt = (held as { receipt?: Partial<BatchItemReceipt> } | null)?.receipt;
  if (typeof heldReceipt !== "object" || heldReceipt === null) return "unreadable";
  return heldReceipt.batchAddress === receipt.batchAddress && heldReceipt.index === receipt.index
    ? "item"
    : "other";
}

/**
 * Where a receipt goes: `<action hash>.json`, unless a file there holds the receipt of another
 * ledger item with the same action hash (two calls identical in everything recorded, each
 * attested) or is not a receipt (left for `abas receipts verify` to name): then
 * `<action hash>.<batch address>.<index>.json`, a name of this item's alone, which one writer at a
 * time saves (the holder of its queue). `found`: whether a file is there for this item already
 * ("item"), is not there ("none"), or is there under the item's own name but is not its receipt
 * ("unreadable", replaced).
 */
async function receiptFileFor(
  folder: string,
  receipt: BatchItemReceipt,
): Promise<{ path: string; found: "item" | "none" | "unreadable" }> {
  const path = receiptFilePath(folder, receipt.actionHash);
  const held = await heldAt(path, receipt);
  // Two writers could both find a file that is not a receipt: neither replaces it, so neither
  // takes the other's receipt.
  if (held === "item" || held === "none") return { path, found: held };
  const own = join(folder, `${receipt.actionHash}.${receipt.batchAddress}.${receipt.index}.json`);
  const heldOwn = await heldAt(own, receipt);
  return { path: own, found: heldOwn === "other" ? "unreadable" : heldOwn };
}

/** The writes under way per action hash: a receipt's file is chosen once those before it are done. */
const writing = new Map<string, Promise<unknown>>();

export type SavedReceiptFile = Readonly<{
  path: string;
  /**
   * Whether this write made the item's file: false when its file was there already (a receipt
   * delivered again), whether it was written again (with its call) or kept (see `call: null`).
   */
  created: boolean;
}>;

/**
 * Writes with the file system's own threads: the proxy's thread goes on forwarding meanwhile. The
 * folder is made (0700) the first time it is missing. A new file takes its name only if no other
 * process took it meanwhile (a link, not a rename), so two processes saving two items of one action
 * hash at once keep both.
 */
export async function writeReceiptFile(
  folder: string,
  content: ReceiptFile,
  options: WriteReceiptOptions = {},
): Promise<SavedReceiptFile> {
  const key = receiptFilePath(folder, content.receipt.actionHash);
  const written = (writing.get(key) ?? Promise.resolve())
    .catch(() => {})
    .then(() => writeReceiptFileNow(folder, content, options));
  writing.set(key, written);
  try {
    return await written;
  } finally {
    if (writing.get(key) === written) writing.delete(key);
  }
}

/** Writes `text` under a name of its own beside `path`, made whole (and flushed) before it is named. */
async function writeAside(folder: string, path: string, text: string, flush: boolean): Promise<string> {
  const aside = `${path}.${process.pid}.${(asideFiles += 1)}.tmp`;
  try {
    await writeFile(aside, text, { mode: 0o600, flush });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    await mkdir(folder, { recursive: true, mode: 0o700 });
    if (flush) await flushPath(dirname(folder));
    await writeFile(aside, text, { mode: 0o600, flush });
  }
  return aside;
}

async function writeReceiptFileNow(
  folder: string,
  content: ReceiptFile,
  { flush = false }: WriteReceiptOptions,
): Promise<SavedReceiptFile> {
  const text = `${JSON.stringify(content, null, 2)}\n`;
  for (;;) {
    const { path, found } = await receiptFileFor(folder, content.receipt);
    // A receipt delivered again once its call left the calls journal (its file was written then)
    // keeps the file that has the call; written maybe without a flush, by a run with "write".
    if (content.call === null && found === "item") {
      if (flush) {
        await flushPath(path);
        await flushFolder(folder);
      }
      return { path, created: false };
    }
    const aside = await writeAside(folder, path, text, flush);
    if (found !== "none") {
      // The item's own file, or a file under its own name that is not its receipt: replaced whole.
      await rename(aside, path);
      if (flush) await flushFolder(folder);
      return { path, created: found === "unreadable" };
    }
    let named: boolean;
    try {
      await link(aside, path);
      named = true;
    } catch (error) {
      // EEXIST: another process saved a receipt of this action hash meanwhile, so choose again. A
      // file system without hard links names it as any other write does.
      named = (error as NodeJS.ErrnoException).code !== "EEXIST";
      if (named) await rename(aside, path);
    } finally {
      await rm(aside, { force: true });
    }
    if (!named) continue;
    if (flush) await flushFolder(folder);
    return { path, created: true };
  }
}

/** A receipt's file under its temporary name, as `writeReceiptFile` writes it before naming it. */
const ASIDE_NAME = /^[0-9a-f]{64}(\.[1-9A-HJ-NP-Za-km-z]{32,44}\.\d+)?\.json\.\d+\.\d+\.tmp$/;
/** A write takes milliseconds: a temporary file this old belongs to a write cut off by the end of its process. */
const ABANDONED_ASIDE_MS = 60_000;

/**
 * Removes the temporary files of receipts whose writing was cut off (a proxy stopped or killed
 * during it): each holds a whole call, and the receipt is written again whole by the proxy that
 * sends its batch next. Returns how many it removed.
 */
export function removeAbandonedAsideFiles(folder: string, now = Date.now()): number {
  let removed = 0;
  for (const name of readdirSync(folder)) {
    if (!ASIDE_NAME.test(name)) continue;
    const path = join(folder, name);
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat?.isFile() !== true || now - stat.mtimeMs < ABANDONED_ASIDE_MS) continue;
    rmSync(path, { force: true });
    removed += 1;
  }
  return removed;
}

const isText = (value: unknown): boolean => typeof value === "string";

/** The fields of a batch item's receipt that a listing sorts and shows by, and what each must hold. */
const LISTED_FIELDS: ReadonlyArray<readonly [string, (value: unknown) => boolean]> = [
  ["slot", Number.isSafeInteger],
  ["index", Number.isSafeInteger],
  ["itemCount", Number.isSafeInteger],
  ["agent", isText],
  ["actionType", isText],
  ["actionHash", isText],
  ["privacyMode", (value) => typeof value === "boolean"],
  ["txSignature", isText],
  [
    "timestamp",
    (value) => Number.isSafeInteger(value) && !Number.isNaN(new Date(Number(value) * 1000).getTime()),
  ],
  ["batchAddress", isText],
];

/**
 * One receipt file's content, checked for its shape (`ABAS_SDK__RECEIPT_FILE_UNREADABLE` when it is
 * not JSON, not an object with a call (an object, or null) and a receipt, or its receipt lacks what
 * a listing needs); `file` names it in errors. Whether the receipt holds is `verifyReceiptFile`'s question.
 * A leading byte order mark (an editor's, on saving) is not part of the JSON text and is skipped, as
 * a browser's File.text() skips it: the same file reads the same on the web.
 */
export function parseReceiptFile(fileText: string, file: string): ReceiptFileEntry {
  const text = fileText.startsWith("\uFEFF") ? fileText.slice(1) : fileText;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new AbasError(ABAS_SDK__RECEIPT_FILE_UNREADABLE, { file, reason: (error as Error).message });
  }
  // The proxy writes what JSON.parse gives back whole; a file that says more (a call whose "to"
  // is given twice) would be read, and verified, as one of its readings only.
  const ambiguity = jsonAmbiguity(text);
  if (ambiguity !== undefined) {
    throw new AbasError(ABAS_SDK__RECEIPT_FILE_UNREADABLE, {
      file,
      reason: `it says more than JSON.parse reads: ${ambiguity}`,
    });
  }
  const content = parsed as Partial<ReceiptFile> | null;
  if (typeof content?.receipt !== "object" || content.receipt === null || !("call" in content)) {
    throw new AbasError(ABAS_SDK__RECEIPT_FILE_UNREADABLE, {
      file,
      reason: "expected an object with a call and a receipt",
    });
  }
  if (typeof content.call !== "object" || Array.isArray(content.call)) {
    throw new AbasError(ABAS_SDK__RECEIPT_FILE_UNREADABLE, {
      file,
      reason: "its call is neither an object nor null",
    });
  }
  const receipt = content.receipt as Record<string, unknown>;
  const invalid = LISTED_FIELDS.filter(([field, valid]) => !valid(receipt[field])).map(([field]) => field);
  if (invalid.length > 0) {
    throw new AbasError(ABAS_SDK__RECEIPT_FILE_UNREADABLE, {
      file,
      reason: `its receipt has no valid ${invalid.join(", ")}`,
    });
  }
  return { file, call: content.call ?? null, receipt: content.receipt };
}

function readReceiptFile(file: string): ReceiptFileEntry {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new AbasError(ABAS_SDK__RECEIPT_FILE_UNREADABLE, { file, reason: (error as Error).message });
  }
  return parseReceiptFile(text, file);
}

export type UnreadableReceiptFile = Readonly<{ file: string; error: AbasError }>;

export type ReceiptsFolder = Readonly<{
  /** Oldest first (by ledger time, then position in the batch). */
  receipts: ReceiptFileEntry[];
  /** The folder's other `.json` files, each with why it is not a receipt (`ABAS_SDK__RECEIPT_FILE_UNREADABLE`). */
  unreadable: UnreadableReceiptFile[];
}>;

/**
 * Every `.json` file of a folder, read as a receipt file: one that is not (see `parseReceiptFile`)
 * is named with its error, and the others are read all the same. Other files, such as a receipt
 * still being written aside, are not looked at.
 */
export function readReceiptsFolder(folder: string): ReceiptsFolder {
  if (!existsSync(folder)) {
    throw new AbasError(ABAS_SDK__RECEIPTS_FOLDER_NOT_FOUND, { folder, reason: "nothing is there" });
  }
  if (!statSync(folder).isDirectory()) {
    throw new AbasError(ABAS_SDK__RECEIPTS_FOLDER_NOT_FOUND, {
      folder,
      reason: `it is a file; name the folder that holds it (${dirname(folder)})`,
    });
  }
  const receipts: ReceiptFileEntry[] = [];
  const unreadable: UnreadableReceiptFile[] = [];
  const names = readdirSync(folder).filter((name) => name.endsWith(".json"));
  for (const name of names.sort()) {
    const file = join(folder, name);
    try {
      receipts.push(readReceiptFile(file));
    } catch (error) {
      if (!isAbasError(error, ABAS_SDK__RECEIPT_FILE_UNREADABLE)) throw error;
      unreadable.push({ file, error });
    }
  }
  receipts.sort(
    (a, b) =>
      a.receipt.slot - b.receipt.slot ||
      a.receipt.batchAddress.localeCompare(b.receipt.batchAddress) ||
      a.receipt.index - b.receipt.index,
  );
  return { receipts, unreadable };
}

/** `ok`, `error` (a JSON-RPC error, or a result with `isError: true`), or `unknown` (call not kept). */
export type ToolCallOutcome = "ok" | "error" | "unknown";

export function outcomeOfReceiptFile(entry: ReceiptFileEntry): ToolCallOutcome {
  const call = entry.call as Readonly<Record<string, unknown>> | null;
  if (call === null) return "unknown";
  const failed = call.error !== undefined || (call.result as { isError?: unknown } | null)?.isError === true;
  return failed ? "error" : "ok";
}

/** A field of the kept action when it is text, else null. */
function textField(entry: ReceiptFileEntry, field: string): string | null {
  const value = (entry.call as Readonly<Record<string, unknown>> | null)?.[field];
  return typeof value === "string" ? value : null;
}

/**
 * What a listing names a receipt by: the tool called, or the action's type (`ModelInvocation`,
 * `Decision`) for an action that is not a tool call; null when the action was not kept.
 */
export function actionOfReceiptFile(entry: ReceiptFileEntry): string | null {
  return entry.call === null ? null : (textField(entry, "tool") ?? entry.receipt.actionType);
}

/** What a listing shows of one receipt file: the action, when the ledger recorded it, and its batch item. */
export function summarizeReceiptFile(entry: ReceiptFileEntry) {
  const { receipt } = entry;
  return {
    file: entry.file,
    action: actionOfReceiptFile(entry),
    tool: textField(entry, "tool"),
    outcome: outcomeOfReceiptFile(entry),
    startedAt: textField(entry, "startedAt"),
    endedAt: textField(entry, "endedAt"),
    agent: receipt.agent,
    actionType: receipt.actionType,
    actionHash: receipt.actionHash,
    privacyMode: receipt.privacyMode,
    batchAddress: receipt.batchAddress,
    index: receipt.index,
    itemCount: receipt.itemCount,
    txSignature: receipt.txSignature,
    slot: receipt.slot,
    recordedAt: new Date(receipt.timestamp * 1000).toISOString(),
  };
}

export type ReceiptFileSummary = ReturnType<typeof summarizeReceiptFile>;

/** The action hash of a recorded action, as the proxy computed it: SHA-256 of its canonical JSON. */
export async function hashToolCall(call: KeptAction): Promise<string> {
  return await hashAction(canonicalize(call));
}

/**
 * Checks one receipt file: its call hashes to the receipt's action hash
 * (`ABAS_SDK__RECEIPT_CALL_MISMATCH`), and the receipt verifies against the ledger
 * (`ABAS_SDK__RECEIPT_VERIFICATION_FAILED`, naming the failed checks).
 */
export async function verifyReceiptFile(
  entry: ReceiptFileEntry,
  ledger: VerifyReceiptOptions,
): Promise<void> {
  if (entry.call !== null) {
    let callHash: string;
    try {
      callHash = await hashToolCall(entry.call);
    } catch (error) {
      if (!isAbasError(error, ABAS_SDK__CANNOT_CANONICALIZE)) throw error;
      throw new AbasError(ABAS_SDK__RECEIPT_FILE_UNREADABLE, {
        file: entry.file,
        reason: `its call has no canonical JSON: ${error.message}`,
      });
    }
    if (callHash !== entry.receipt.actionHash) {
      throw new AbasError(ABAS_SDK__RECEIPT_CALL_MISMATCH, {
        file: entry.file,
        actionHash: String(entry.receipt.actionHash),
        callHash,
      });
    }
  }
  const verification = await verifyReceipt(entry.receipt, ledger);
  if (!verification.valid) {
    const failed = Object.entries(verification.checks)
      .filter(([, check]) => !check.ok)
      .map(([name, check]) => (check.reason === undefined ? name : `${name} (${check.reason})`));
    throw new AbasError(ABAS_SDK__RECEIPT_VERIFICATION_FAILED, {
      file: entry.file,
      failedChecks: failed.join(", "),
    });
  }
}
