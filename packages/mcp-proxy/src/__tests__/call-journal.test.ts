/** The calls journal: the calls waiting for receipts, each until its receipt file is written. */
import assert from "node:assert/strict";
import fs, { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";

import { fullDisk } from "../../../sdk/src/__tests__/support/full-disk.js";
import { CallJournal } from "../call-journal.js";
import type { ToolCallAction } from "../tool-calls.js";

const call = (message: string): ToolCallAction => ({
  kind: "mcp/tools/call",
  tool: "echo",
  arguments: { message },
  result: { content: [{ type: "text", text: `Echo: ${message}` }] },
  startedAt: "2026-11-24T09:00:00.000Z",
  endedAt: "2026-11-24T09:00:00.001Z",
  callId: message,
});
const hash = (index: number): string => index.toString(16).padStart(64, "0");
const hashes = (...indexes: number[]): Set<string> => new Set(indexes.map(hash));
/** A line as the journal writes it. */
const journalLine = (index: number, message: string): string =>
  `${JSON.stringify({ actionHash: hash(index), call: call(message) })}\n`;
const NONE = new Set<string>();

/**
 * The fault injected on purpose: `fs.<name>` fails with ENOSPC for the paths `failing` picks,
 * as a file system out of room or inodes does, until `restore`.
 */
function refuse(name: "openSync" | "renameSync", failing: (path: string) => boolean): { restore(): void } {
  const real = fs[name] as (...args: unknown[]) => unknown;
  (fs as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
    if (failing(String(args[0]))) {
      throw Object.assign(new Error(`ENOSPC: no space left on device, ${name}`), { code: "ENOSPC" });
    }
    return real(...args);
  };
  syncBuiltinESMExports();
  return {
    restore() {
      (fs as unknown as Record<string, unknown>)[name] = real;
      syncBuiltinESMExports();
    },
  };
}

describe("the calls journal", () => {
  let queueDir: string;
  let file: string;
  beforeEach(() => {
    queueDir = mkdtempSync(join(tmpdir(), "abas-call-journal-"));
    file = join(queueDir, "calls.jsonl");
  });
  afterEach(() => rmSync(queueDir, { recursive: true, force: true }));

  const hashesIn = (path: string): string[] =>
    readFileSync(path, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line).actionHash);
  /** The journal's files, each with the hashes of its lines. */
  const journalFiles = (): Record<string, string[]> =>
    Object.fromEntries(
      readdirSync(queueDir)
        .filter((name) => name.startsWith("calls"))
        .map((name) => [name, hashesIn(join(queueDir, name))]),
    );

  /** A receipt saved as the proxy saves one; `created`: its file was made (not there already, nor failed). */
  const receipt = (journal: CallJournal, index: number, created = true) => {
    const found = journal.receiptStarted(hash(index));
    journal.receiptEnded(hash(index), created);
    return found;
  };

  for (const durability of ["write", "fsync"] as const) {
    it(`seals calls.jsonl once large and removes a sealed file once its calls have receipts (${durability})`, () => {
      // Given a journal sealed past 1 KB, and 20 calls of which the first 19 get their receipts
      const journal = new CallJournal(queueDir, durability, { queued: NONE, sealBytes: 1024 });
      for (let index = 0; index < 20; index++) journal.append(hash(index), call(`call ${index}`));
      const sealed = Object.keys(journalFiles()).filter((name) => name !== "calls.jsonl");
      assert.ok(sealed.length >= 3, `sealed: ${sealed.join(", ")}`);
      for (let index = 0; index < 19; index++)
        assert.deepEqual(receipt(journal, index), call(`call ${index}`));
      // Then only the file holding the call still waiting is left beside calls.jsonl
      const left = journalFiles();
      assert.deepEqual(
        Object.entries(left).filter(([name]) => name !== "calls.jsonl").length,
        left["calls.jsonl"]!.includes(hash(19)) ? 0 : 1,
      );
      assert.ok(Object.values(left).flat().includes(hash(19)));
      journal.append(hash(20), call("call 20"));
      journal.close();
      // And a journal opened again (its queue holding both) gives both waiting calls back, and
      // once both have receipts and it is closed, all it leaves is an empty calls.jsonl
      const reopened = new CallJournal(queueDir, durability, { queued: hashes(19, 20) });
      assert.deepEqual(receipt(reopened, 19), call("call 19"));
      assert.deepEqual(receipt(reopened, 20), call("call 20"));
      assert.equal(receipt(reopened, 3), null);
      reopened.close();
      assert.deepEqual(journalFiles(), { "calls.jsonl": [] });
    });
  }

  it("keeps a call whose receipt file could not be written, for the receipt's next delivery", () => {
    const journal = new CallJournal(queueDir, "write", { queued: NONE, sealBytes: 1 });
    journal.append(hash(1), call("one"));
    assert.deepEqual(receipt(journal, 1, false), call("one"));
    journal.close();
    assert.deepEqual(journalFiles(), { "calls.1.jsonl": [hash(1)], "calls.jsonl": [] });
    const reopened = new CallJournal(queueDir, "write", { queued: hashes(1) });
    assert.deepEqual(receipt(reopened, 1), call("one"));
    reopened.close();
    assert.deepEqual(journalFiles(), { "calls.jsonl": [] });
  });

  it("reads back at open only the calls its queue still holds (those receipted before a kill -9 are not)", () => {
    // Given a calls.jsonl of three calls, one still queued, and a sealed file of a receipted call
    writeFileSync(file, [1, 2, 3].map((index) => journalLine(index, `c${index}`)).join(""));
    writeFileSync(join(queueDir, "calls.7.jsonl"), journalLine(4, "c4"));
    const journal = new CallJournal(queueDir, "write", { queued: hashes(2) });
    // Then the file without a waiting call is removed, and calls.jsonl is sealed under the next number
    assert.deepEqual(journalFiles(), { "calls.8.jsonl": [1, 2, 3].map(hash), "calls.jsonl": [] });
    assert.equal(receipt(journal, 1), null);
    assert.equal(receipt(journal, 4), null);
    assert.deepEqual(receipt(journal, 2), call("c2"));
    journal.close();
    assert.deepEqual(journalFiles(), { "calls.jsonl": [] });
  });

  it("drops a torn last line at open, so the next call's line is whole", () => {
    // Given a file whose last line a crash cut short
    writeFileSync(file, `${journalLine(1, "kept")}{"actionHash":"00aa","call":{"kind":"mcp/tools/c`);
    const journal = new CallJournal(queueDir, "write", { queued: hashes(1, 2) });
    journal.append(hash(2), call("after the crash"));
    journal.close();
    // Then both calls are read back whole
    const reopened = new CallJournal(queueDir, "write", { queued: hashes(1, 2) });
    assert.deepEqual(receipt(reopened, 1), call("kept"));
    assert.deepEqual(receipt(reopened, 2), call("after the crash"));
    reopened.close();
  });

  it("never writes a waiting call again: a large call waiting keeps its own sealed file as it is", () => {
    // Given a large call waiting (its batch failed), sealed in a file of its own
    const journal = new CallJournal(queueDir, "write", { queued: NONE, sealBytes: 1024 });
    journal.append(hash(0), call("x".repeat(4096)));
    const large = join(queueDir, "calls.1.jsonl");
    const { ino, mtimeMs } = statSync(large);
    // When 100 small calls are recorded and get their receipts
    for (let index = 1; index <= 100; index++) {
      journal.append(hash(index), call(`s${index}`.padEnd(200, ".")));
      receipt(journal, index);
    }
    // Then the large call's file is the same file, untouched, and the small calls' sealed files
    // are gone
    assert.deepEqual({ ino: statSync(large).ino, mtimeMs: statSync(large).mtimeMs }, { ino, mtimeMs });
    const files = journalFiles();
    assert.deepEqual(Object.keys(files).sort(), ["calls.1.jsonl", "calls.jsonl"]);
    assert.deepEqual(files["calls.1.jsonl"], [hash(0)]);
    journal.close();
  });

  for (const [where, sealBytes] of [
    ["in one file", 1024],
    ["in two sealed files", 1],
  ] as const) {
    it(`keeps two identical calls (one action hash, two receipts) until both receipt files are made, a receipt delivered again not counting (${where})`, () => {
      // Given two identical calls, the first one's receipt saved (its file made)
      const journal = new CallJournal(queueDir, "write", { queued: NONE, sealBytes });
      journal.append(hash(1), call("twice"));
      journal.append(hash(1), call("twice"));
      assert.deepEqual(receipt(journal, 1), call("twice"));
      // When that receipt is delivered again and its file was there (not made again)
      assert.deepEqual(receipt(journal, 1, false), call("twice"));
      // Then the second call's receipt still gets the call, which then goes
      assert.deepEqual(receipt(journal, 1), call("twice"));
      assert.equal(receipt(journal, 1), null);
      journal.close();
      assert.deepEqual(journalFiles(), { "calls.jsonl": [] });
    });
  }

  it("counts on from the highest sealed file and reads the next one back, and leaves alone names past 2^53 that are not its own", () => {
    // Given a sealed file numbered 2^50 holding a waiting call, and one past 2^53
    const foreign = `calls.${2 ** 53}.jsonl`;
    writeFileSync(join(queueDir, `calls.${2 ** 50}.jsonl`), journalLine(8, "high"));
    writeFileSync(join(queueDir, foreign), journalLine(9, "not ours"));
    const journal = new CallJournal(queueDir, "write", { queued: hashes(1, 8, 9), sealBytes: 1 });
    journal.append(hash(1), call("after"));
    journal.close();
    // Then the call sealed next (2^50 + 1) is read back with the other, and the foreign file is not read
    assert.ok(`calls.${2 ** 50 + 1}.jsonl` in journalFiles());
    const reopened = new CallJournal(queueDir, "write", { queued: hashes(1, 8, 9) });
    assert.deepEqual(receipt(reopened, 1), call("after"));
    assert.deepEqual(receipt(reopened, 8), call("high"));
    assert.equal(receipt(reopened, 9), null);
    reopened.close();
    assert.deepEqual(journalFiles(), { [foreign]: [hash(9)], "calls.jsonl": [] });
  });

  it("seals no file numbered 2^53 - 1 or more: past 2^53 - 2, calls stay in calls.jsonl", () => {
    // Given sealed files up to 2^53 - 4, one of them holding a waiting call
    const last = Number.MAX_SAFE_INTEGER;
    writeFileSync(join(queueDir, `calls.${last - 3}.jsonl`), journalLine(9, "high"));
    // When calls are recorded, each past the seal size
    const journal = new CallJournal(queueDir, "write", { queued: hashes(9), sealBytes: 1 });
    for (let index = 1; index <= 4; index++) journal.append(hash(index), call(`c${index}`));
    // Then files are sealed below 2^53 - 1 (the next number, that of calls.jsonl, stays exact),
    // and the calls after them stay in calls.jsonl
    assert.deepEqual(journalFiles(), {
      [`calls.${last - 3}.jsonl`]: [hash(9)],
      [`calls.${last - 2}.jsonl`]: [hash(1)],
      [`calls.${last - 1}.jsonl`]: [hash(2)],
      "calls.jsonl": [hash(3), hash(4)],
    });
    // And a journal opened on the folder (no close: a kill -9) has every call, and records more
    const reopened = new CallJournal(queueDir, "write", { queued: hashes(1, 2, 3, 4, 5, 9), sealBytes: 1 });
    for (const index of [1, 2, 3, 4]) assert.deepEqual(receipt(reopened, index), call(`c${index}`));
    assert.deepEqual(receipt(reopened, 9), call("high"));
    reopened.append(hash(5), call("c5"));
    assert.deepEqual(receipt(reopened, 5), call("c5"));
    reopened.close();
    journal.close();
  });

  it("leaves no gap after a line a full disk cut short: the next call is read back after a kill -9", () => {
    const journal = new CallJournal(queueDir, "write", { queued: NONE });
    journal.append(hash(1), call("one"));
    // When the disk takes 10 bytes of the next line, then is full (a fault injected on purpose)
    const disk = fullDisk();
    try {
      disk.fillAfter(10);
      assert.throws(() => journal.append(hash(2), call("two")), { code: "ENOSPC" });
    } finally {
      disk.restore();
    }
    journal.append(hash(3), call("three"));
    // Then the file is two whole lines, and a journal opened on it (no close: a kill -9) has both calls
    assert.deepEqual(journalFiles(), { "calls.jsonl": [hash(1), hash(3)] });
    const reopened = new CallJournal(queueDir, "write", { queued: hashes(1, 3) });
    assert.deepEqual(receipt(reopened, 1), call("one"));
    assert.deepEqual(receipt(reopened, 3), call("three"));
    reopened.close();
    journal.close();
  });

  const sealedAfterThree = { "calls.1.jsonl": [1, 2, 3].map(hash), "calls.jsonl": [] };
  const newCallsFile = (path: string) => path.endsWith("calls.jsonl");
  const sealedFile = (path: string) => path.endsWith("calls.1.jsonl");
  for (const [step, faults, afterThree] of [
    ["renaming calls.jsonl", [["renameSync", newCallsFile]], sealedAfterThree],
    ["making the new calls.jsonl", [["openSync", newCallsFile]], sealedAfterThree],
    // The open file keeps its sealed name, and the journal seals no more: a rename could put
    // another file in its place
    [
      "making the new calls.jsonl, and renaming it back",
      [
        ["openSync", newCallsFile],
        ["renameSync", sealedFile],
      ],
      { "calls.1.jsonl": [1, 2, 3].map(hash) },
    ],
  ] as const) {
    it(`records every call when the file system refuses a seal (${step}), and seals once it can`, () => {
      // Given a journal sealed after each call, whose seal the file system refuses (injected on purpose)
      const journal = new CallJournal(queueDir, "write", { queued: NONE, sealBytes: 1 });
      const refused = faults.map(([name, failing]) => refuse(name, failing));
      try {
        journal.append(hash(1), call("one"));
        journal.append(hash(2), call("two"));
      } finally {
        for (const fault of refused) fault.restore();
      }
      // Then both calls are on the disk, in the file the journal has open
      assert.deepEqual(Object.values(journalFiles()).flat(), [hash(1), hash(2)]);
      // And once the file system allows it, calls go on being recorded, and sealed
      journal.append(hash(3), call("three"));
      assert.deepEqual(journalFiles(), afterThree);
      // And a journal opened on the folder (no close: a kill -9) has all three
      const reopened = new CallJournal(queueDir, "write", { queued: hashes(1, 2, 3) });
      for (const [index, message] of [
        [1, "one"],
        [2, "two"],
        [3, "three"],
      ] as const)
        assert.deepEqual(receipt(reopened, index), call(message));
      reopened.close();
      journal.close();
    });
  }

  it("empties the file at close when every call has its receipt, keeps it when one has not", () => {
    // Given a call whose record failed (forgotten) and one that got its receipt
    const journal = new CallJournal(queueDir, "write", { queued: NONE });
    journal.append(hash(1), call("one"));
    journal.append(hash(2), call("not recorded"));
    journal.forget(hash(2));
    receipt(journal, 1);
    // Then closing empties it
    journal.close();
    assert.equal(statSync(file).size, 0);
    // And with a call still waiting it is kept
    const next = new CallJournal(queueDir, "write", { queued: NONE });
    next.append(hash(3), call("waiting"));
    next.close();
    assert.match(readFileSync(file, "utf8"), /"waiting"/);
  });
});
