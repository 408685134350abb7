/**
 * With `--durability fsync` a receipt file, which holds the only full copy of its call once the
 * calls journal lets the call go, reaches the disk before its batch is closed in the queue: after
 * a power loss, a batch the queue no longer sends again still has its receipt files. Checked on the
 * system calls of the real proxy (its threads and the file system's), traced with strace while the
 * official MCP client calls server-everything through it.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";

import { startLedgerWithAgent, type LedgerAndAgent } from "./support/ledger-and-agent.js";
import {
  connectClient,
  EVERYTHING_SERVER,
  proxyCommand,
  proxyOptions,
  queueFolderOf,
  recordThenKill,
  TSX_LOADER,
} from "./support/proxy-process.js";
import type { ReceiptFileEntry } from "../receipts-folder.js";

import { waitForReceipts } from "./support/receipts.js";
import {
  descriptorPath,
  isFlush,
  isNaming,
  quotedArguments,
  readSyscalls,
  straceCommand,
  straceSkipReason,
  type Syscall,
} from "./support/syscall-trace.js";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The queue's lines as the proxy wrote them, after the lines the file held before (`before`): for
 * an action's hash, the write of the done line of the batch that holds it (undefined while there
 * is none).
 */
function doneLines(
  calls: readonly Syscall[],
  queueFile: string,
  before = "",
): (actionHash: string) => Syscall | undefined {
  const actions = new Map<number, string>();
  const batches = new Map<number, number[]>();
  const done = new Map<number, Syscall>();
  const written = calls
    .filter((call) => call.name === "write" && descriptorPath(call) === queueFile)
    .map((call) => ({ call, text: quotedArguments(call)[0]! }));
  for (const { call, text } of [{ call: undefined, text: before }, ...written]) {
    for (const line of text.split("\n").filter(Boolean)) {
      const entry = JSON.parse(line) as { a?: number; h?: string; b?: number; ids?: number[]; d?: number };
      if (entry.a !== undefined) actions.set(entry.a, entry.h!);
      if (entry.b !== undefined) batches.set(entry.b, entry.ids!);
      if (entry.d !== undefined && call !== undefined && !done.has(entry.d)) done.set(entry.d, call);
    }
  }
  return (actionHash) => {
    const action = [...actions].find(([, hash]) => hash === actionHash)?.[0];
    if (action === undefined) return undefined;
    const batch = [...batches].find(([id, ids]) => ids.includes(action) && done.has(id))?.[0];
    return batch === undefined ? undefined : done.get(batch);
  };
}

/**
 * Waits until the batch of each receipt in `entries` is closed in `queueFile` (strace's log at
 * `trace`; `before`: what the file held when the trace started), then checks that each receipt file was flushed under its temporary name, renamed, and
 * its folder flushed, all before that done line was written.
 */
async function assertFlushedBeforeDone(
  trace: string,
  queueFile: string,
  receiptsDir: string,
  entries: readonly ReceiptFileEntry[],
  before = "",
): Promise<void> {
  let calls: Syscall[] = [];
  let doneLineOf = doneLines(calls, queueFile, before);
  const closed = () => entries.every((entry) => doneLineOf(entry.receipt.actionHash) !== undefined);
  for (let attempt = 0; attempt < 600 && (calls.length === 0 || !closed()); attempt++) {
    await sleep(100);
    calls = readSyscalls(trace);
    doneLineOf = doneLines(calls, queueFile, before);
  }
  assert.ok(closed(), "every receipt's batch has its done line");
  for (const entry of entries) {
    const doneLine = doneLineOf(entry.receipt.actionHash)!;
    const rename = calls.find((call) => isNaming(call) && quotedArguments(call)[1] === entry.file);
    assert.ok(rename, `${entry.file} was named (renamed or linked) into place`);
    const aside = quotedArguments(rename)[0];
    const fileFlush = calls.find((call) => isFlush(call) && descriptorPath(call) === aside);
    assert.ok(fileFlush, `${aside} was flushed`);
    assert.ok(fileFlush.end <= rename.start, "the file is flushed before it is renamed");
    const folderFlush = calls.find(
      (call) => isFlush(call) && descriptorPath(call) === receiptsDir && call.start >= rename.end,
    );
    assert.ok(folderFlush, `the receipts folder was flushed after ${entry.file} was renamed`);
    assert.ok(folderFlush.end <= doneLine.start, "the folder is flushed before the batch's done line");
  }
}

describe("receipt files with --durability fsync", { skip: straceSkipReason() }, () => {
  let setup: LedgerAndAgent;

  before(async () => {
    setup = await startLedgerWithAgent();
  });
  after(async () => {
    await setup?.stop();
  });

  it("flushes each receipt file and its folder entry before the batch's done line", async () => {
    // Given the proxy with fsync durability, its system calls traced
    // (strace names descriptors by their resolved paths)
    const workDir = realpathSync(setup.workDir);
    const dirs = { queueDir: join(workDir, "queue"), receiptsDir: join(workDir, "receipts") };
    const trace = join(workDir, "proxy.strace");
    const proxy = proxyCommand(proxyOptions(setup, dirs, ["--durability", "fsync"]), [
      process.execPath,
      EVERYTHING_SERVER,
      "stdio",
    ]);
    const { client } = await connectClient(straceCommand(trace, proxy));
    const queueFile = join(dirs.queueDir, "queue.jsonl");
    try {
      // When three calls are recorded and receipted
      for (const message of ["one", "two", "three"])
        await client.callTool({ name: "echo", arguments: { message } });
      const entries = await waitForReceipts(dirs.receiptsDir, 3);
      // Then each file was flushed under its temporary name, renamed, and its folder flushed, all
      // before the done line of its batch was written
      await assertFlushedBeforeDone(trace, queueFile, dirs.receiptsDir, entries);
    } finally {
      await client.close();
    }
  });

  it("flushes the receipt files of calls another proxy left, whatever its own durability", async () => {
    // Given a call recorded by the second of two proxies of one server (default queue folders),
    // killed with SIGKILL before sending it, and the first proxy closed
    const workDir = realpathSync(setup.workDir);
    const env = { HOME: join(workDir, "home") };
    const receiptsDir = join(workDir, "left-receipts");
    const options = proxyOptions(setup, { receiptsDir }, ["--max-batch-delay-ms", "600000"]);
    const everything = [process.execPath, EVERYTHING_SERVER, "stdio"];
    const first = await connectClient(proxyCommand(options, everything), env);
    const second = await connectClient(proxyCommand(options, everything), env);
    const secondQueue = await queueFolderOf(second);
    assert.match(secondQueue, /-2$/);
    await recordThenKill(second, "left");
    await first.client.close();
    const queueFile = join(secondQueue, "queue.jsonl");
    const recorded = readFileSync(queueFile, "utf8");
    // When a proxy with the default durability ("write") starts, its system calls traced
    const trace = join(workDir, "taker.strace");
    const taker = await connectClient(straceCommand(trace, proxyCommand(options, everything)), env);
    try {
      // Then it sends the call, and its receipt file reaches the disk before the batch is closed
      const entries = await waitForReceipts(receiptsDir, 1);
      await assertFlushedBeforeDone(trace, queueFile, receiptsDir, entries, recorded);
    } finally {
      await taker.client.close();
    }
  });

  it("shares folder flushes among receipts written together, each answered by one that started after its rename", () => {
    // Given 100 receipts written at once (a full batch) with flush, then one delivered again without its call
    const folder = join(realpathSync(mkdtempSync(join(tmpdir(), "abas-receipts-flush-"))), "receipts");
    const trace = `${folder}.strace`;
    // The script notes each receipt here once its write returned
    const saved = `${folder}.saved`;
    const module = fileURLToPath(new URL("../receipts-folder.ts", import.meta.url));
    const script = `
      import { openSync, writeSync } from "node:fs";
      import { writeReceiptFile } from ${JSON.stringify(module)};
      const folder = ${JSON.stringify(folder)};
      const saved = openSync(${JSON.stringify(saved)}, "a");
      const receipt = (index) => ({ actionHash: index.toString(16).padStart(64, "0") });
      const call = { kind: "test/tool-call", tool: "echo", arguments: {}, startedAt: "t0", endedAt: "t1" };
      const write = async (content) => {
        await writeReceiptFile(folder, content, { flush: true });
        writeSync(saved, content.receipt.actionHash + " ");
      };
      await write({ call, receipt: receipt(0) });
      await Promise.all(Array.from({ length: 100 }, (_, index) => write({ call, receipt: receipt(index + 1) })));
      await write({ call: null, receipt: receipt(1) });`;
    try {
      const [command, ...args] = straceCommand(trace, [
        process.execPath,
        "--import",
        TSX_LOADER,
        "--input-type=module",
        "--eval",
        script,
      ]);
      execFileSync(command!, args, { stdio: "inherit" });
      const calls = readSyscalls(trace);

      // Then each write returned only after a folder flush that started once its rename was done
      const renames = calls.filter((call) => isNaming(call) && quotedArguments(call)[1]!.startsWith(folder));
      assert.equal(renames.length, 101);
      const folderFlushes = calls.filter((call) => isFlush(call) && descriptorPath(call) === folder);
      const returned = calls.filter((call) => call.name === "write" && descriptorPath(call) === saved);
      for (const rename of renames) {
        const file = quotedArguments(rename)[1]!;
        const back = returned.find((call) => file.endsWith(`${quotedArguments(call)[0]!.trim()}.json`));
        assert.ok(back, `${file} was saved`);
        assert.ok(
          folderFlushes.some((flush) => flush.start >= rename.end && flush.end <= back.start),
          `a folder flush between the rename of ${file} and the return of its write`,
        );
      }
      // ...with fewer folder flushes than receipts
      assert.ok(folderFlushes.length < renames.length, `${folderFlushes.length} folder flushes`);
      // And the file delivered again was flushed, with its folder, though it was not rewritten
      const again = join(folder, `${"1".padStart(64, "0")}.json`);
      const lastRename = renames.at(-1)!;
      const againFlush = calls.find(
        (call) => isFlush(call) && descriptorPath(call) === again && call.start >= lastRename.end,
      );
      assert.ok(againFlush, `${again} flushed when delivered again`);
      assert.ok(folderFlushes.some((flush) => flush.start >= againFlush.end));
    } finally {
      rmSync(join(folder, ".."), { recursive: true, force: true });
    }
  });
});
