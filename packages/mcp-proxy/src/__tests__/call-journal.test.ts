/** `calls.jsonl`: the calls waiting for receipts, each until its receipt file is written. */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";

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

describe("the calls journal", () => {
  let queueDir: string;
  let file: string;
  beforeEach(() => {
    queueDir = mkdtempSync(join(tmpdir(), "abas-call-journal-"));
    file = join(queueDir, "calls.jsonl");
  });
  afterEach(() => rmSync(queueDir, { recursive: true, force: true }));

  const lineHashes = (): string[] =>
    readFileSync(file, "utf8")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => JSON.parse(line).actionHash);

  /** A receipt saved as the proxy saves one. */
  const receipt = (journal: CallJournal, index: number, written = true) => {
    const found = journal.receiptStarted(hash(index));
    journal.receiptEnded(hash(index), written);
    return found;
  };

  for (const durability of ["write", "fsync"] as const) {
    it(`keeps only the calls without receipts once it is large (${durability})`, () => {
      // Given a journal rewritten past 1 KB, and 20 calls of which the first 19 get their receipts
      const journal = new CallJournal(queueDir, durability, { queued: NONE, rewriteBytes: 1024 });
      for (let index = 0; index < 20; index++) journal.append(hash(index), call(`call ${index}`));
      const before = statSync(file).size;
      // When 18 receipts are saved while another is still being saved, the file is not rewritten
      const saving = journal.receiptStarted(hash(18));
      for (let index = 0; index < 18; index++)
        assert.deepEqual(receipt(journal, index), call(`call ${index}`));
      assert.equal(statSync(file).size, before);
      // When the last one is saved, the file holds only the call still waiting, and takes new ones
      assert.deepEqual(saving, call("call 18"));
      journal.receiptEnded(hash(18), true);
      assert.deepEqual(lineHashes(), [hash(19)]);
      journal.append(hash(20), call("call 20"));
      journal.close();
      // And a journal opened again (its queue holding both) gives both waiting calls back
      const reopened = new CallJournal(queueDir, durability, { queued: hashes(19, 20) });
      assert.deepEqual(receipt(reopened, 19), call("call 19"));
      assert.deepEqual(receipt(reopened, 20), call("call 20"));
      assert.equal(receipt(reopened, 3), null);
      reopened.close();
    });
  }

  it("keeps a call whose receipt file could not be written, for the receipt's next delivery", () => {
    const journal = new CallJournal(queueDir, "write", { queued: NONE, rewriteBytes: 1 });
    journal.append(hash(1), call("one"));
    assert.deepEqual(receipt(journal, 1, false), call("one"));
    journal.close();
    assert.deepEqual(lineHashes(), [hash(1)]);
    const reopened = new CallJournal(queueDir, "write", { queued: hashes(1) });
    assert.deepEqual(receipt(reopened, 1), call("one"));
    reopened.close();
    assert.equal(statSync(file).size, 0);
  });

  it("drops at open the lines of calls its queue no longer holds (receipted before a kill -9)", () => {
    writeFileSync(file, [1, 2, 3].map((index) => journalLine(index, `c${index}`)).join(""));
    const journal = new CallJournal(queueDir, "write", { queued: hashes(2) });
    assert.deepEqual(lineHashes(), [hash(2)]);
    assert.equal(receipt(journal, 1), null);
    assert.deepEqual(receipt(journal, 2), call("c2"));
    journal.close();
    assert.equal(statSync(file).size, 0);
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

  it("is not rewritten after every receipt while the calls still waiting make most of it", () => {
    // Given a large call waiting (its batch failed) in a file past the bound
    const journal = new CallJournal(queueDir, "write", { queued: NONE, rewriteBytes: 1024 });
    journal.append(hash(0), call("x".repeat(4096)));
    for (let index = 1; index <= 3; index++) {
      journal.append(hash(index), call(`small ${index}`));
      receipt(journal, index);
    }
    // Then the finished small calls' lines are still there: no rewrite of the 4 KB call for each
    assert.deepEqual(lineHashes(), [0, 1, 2, 3].map(hash));
    // And once the finished ones make half the file, it is rewritten
    for (let index = 4; index < 100 && lineHashes().length > 1; index++) {
      journal.append(hash(index), call(`s${index}`.padEnd(200, ".")));
      receipt(journal, index);
    }
    assert.deepEqual(lineHashes(), [hash(0)]);
    journal.close();
  });

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
