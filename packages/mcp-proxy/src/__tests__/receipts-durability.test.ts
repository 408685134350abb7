/**
 * With `--durability fsync` a receipt file, which holds the only full copy of its call once the
 * calls journal lets the call go, reaches the disk before its batch is closed in the queue: after
 * a power loss, a batch the queue no longer sends again still has its receipt files. Checked on the
 * system calls of the real proxy (its threads and the file system's), traced with strace while the
 * official MCP client calls server-everything through it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import { startLedgerWithAgent, type LedgerAndAgent } from "./support/ledger-and-agent.js";
import { connectClient, EVERYTHING_SERVER, proxyCommand, proxyOptions } from "./support/proxy-process.js";
import { waitForReceipts } from "./support/receipts.js";
import {
  descriptorPath,
  isFlush,
  isRename,
  quotedArguments,
  readSyscalls,
  straceCommand,
  straceSkipReason,
  type Syscall,
} from "./support/syscall-trace.js";

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The queue's lines as the proxy wrote them, by kind: actions (id -> hash), batches (id -> action ids), done lines. */
function queueLines(calls: readonly Syscall[], queueFile: string) {
  const actions = new Map<number, string>();
  const batches = new Map<number, number[]>();
  const done = new Map<number, Syscall>();
  for (const call of calls) {
    if (call.name !== "write" || descriptorPath(call) !== queueFile) continue;
    for (const line of quotedArguments(call)[0]!.split("\n").filter(Boolean)) {
      const entry = JSON.parse(line) as { a?: number; h?: string; b?: number; ids?: number[]; d?: number };
      if (entry.a !== undefined) actions.set(entry.a, entry.h!);
      if (entry.b !== undefined) batches.set(entry.b, entry.ids!);
      if (entry.d !== undefined) done.set(entry.d, call);
    }
  }
  return { actions, batches, done };
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
    const dirs = { queueDir: join(setup.workDir, "queue"), receiptsDir: join(setup.workDir, "receipts") };
    const trace = join(setup.workDir, "proxy.strace");
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
      // ...and each one's batch is closed in the queue
      let calls: Syscall[] = [];
      let lines = queueLines(calls, queueFile);
      const closed = () =>
        entries.every((entry) => {
          const action = [...lines.actions].find(([, hash]) => hash === entry.receipt.actionHash)?.[0];
          return [...lines.batches].some(([id, ids]) => ids.includes(action!) && lines.done.has(id));
        });
      for (let attempt = 0; attempt < 100 && (calls.length === 0 || !closed()); attempt++) {
        await sleep(100);
        calls = readSyscalls(trace);
        lines = queueLines(calls, queueFile);
      }
      assert.ok(closed(), "every receipt's batch has its done line");

      // Then each file was flushed under its temporary name, renamed, and its folder flushed, all
      // before the done line of its batch was written
      for (const entry of entries) {
        const action = [...lines.actions].find(([, hash]) => hash === entry.receipt.actionHash)![0];
        const batch = [...lines.batches].find(([, ids]) => ids.includes(action))![0];
        const doneLine = lines.done.get(batch)!;
        const rename = calls.find((call) => isRename(call) && quotedArguments(call)[1] === entry.file);
        assert.ok(rename, `${entry.file} was renamed into place`);
        const aside = quotedArguments(rename)[0];
        const fileFlush = calls.find((call) => isFlush(call) && descriptorPath(call) === aside);
        assert.ok(fileFlush, `${aside} was flushed`);
        assert.ok(fileFlush.end <= rename.start, "the file is flushed before it is renamed");
        const folderFlush = calls.find(
          (call) => isFlush(call) && descriptorPath(call) === dirs.receiptsDir && call.start >= rename.end,
        );
        assert.ok(folderFlush, `the receipts folder was flushed after ${entry.file} was renamed`);
        assert.ok(folderFlush.end <= doneLine.start, "the folder is flushed before the batch's done line");
      }
    } finally {
      await client.close();
    }
  });
});
