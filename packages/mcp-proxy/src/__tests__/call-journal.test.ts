/** `calls.jsonl`: the calls waiting for receipts, rewritten without the others once it is large. */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
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
});
const hash = (index: number): string => index.toString(16).padStart(64, "0");

describe("the calls journal", () => {
  let queueDir: string;
  let file: string;
  beforeEach(() => {
    queueDir = mkdtempSync(join(tmpdir(), "abas-call-journal-"));
    file = join(queueDir, "calls.jsonl");
  });
  afterEach(() => rmSync(queueDir, { recursive: true, force: true }));

  for (const durability of ["write", "fsync"] as const) {
    it(`keeps only the calls without receipts once it is large (${durability})`, () => {
      // Given a journal rewritten past 1 KB, and 20 calls of which the first 19 got their receipts
      const journal = new CallJournal(queueDir, durability, { rewriteBytes: 1024 });
      for (let index = 0; index < 20; index++) journal.append(hash(index), call(`call ${index}`));
      const before = statSync(file).size;
      for (let index = 0; index < 19; index++)
        assert.deepEqual(journal.take(hash(index)), call(`call ${index}`));

      // When one receipt is still being saved, the file is not rewritten: a crash would need its call
      for (let index = 0; index < 18; index++) journal.saved();
      assert.equal(statSync(file).size, before);

      // When the last one is saved, the file holds only the call still waiting, and takes new ones
      journal.saved();
      const lines = readFileSync(file, "utf8").trim().split("\n");
      assert.deepEqual(
        lines.map((line) => JSON.parse(line).actionHash),
        [hash(19)],
      );
      journal.append(hash(20), call("call 20"));
      journal.close();

      // And a journal opened again gives both waiting calls back
      const reopened = new CallJournal(queueDir, durability);
      assert.deepEqual(reopened.take(hash(19)), call("call 19"));
      assert.deepEqual(reopened.take(hash(20)), call("call 20"));
      assert.equal(reopened.take(hash(3)), null);
      reopened.close();
    });
  }

  it("stays as it is while smaller than the bound", () => {
    const journal = new CallJournal(queueDir, "write");
    journal.append(hash(1), call("one"));
    journal.append(hash(2), call("two"));
    journal.take(hash(1));
    journal.saved();
    assert.equal(readFileSync(file, "utf8").trim().split("\n").length, 2);
    journal.close();
  });

  it("empties the file at close when every call has its receipt, keeps it when one has not", () => {
    // Given a call whose record failed (forgotten) and one that got its receipt
    const journal = new CallJournal(queueDir, "write");
    journal.append(hash(1), call("one"));
    journal.append(hash(2), call("not recorded"));
    journal.forget(hash(2));
    journal.take(hash(1));
    journal.saved();
    // Then closing empties it
    journal.close();
    assert.equal(statSync(file).size, 0);
    // And with a call still waiting it is kept
    const next = new CallJournal(queueDir, "write");
    next.append(hash(3), call("waiting"));
    next.close();
    assert.match(readFileSync(file, "utf8"), /"waiting"/);
  });
});
