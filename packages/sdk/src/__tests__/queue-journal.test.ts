import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";

import { ABAS_SDK__ATTESTOR_QUEUE_CORRUPT, isAbasError } from "@abas/errors";

import { readQueueBacklog } from "../attestor/queue-journal.js";

const HASH = "ab".repeat(32);

describe("the attestor's queue file, read back", () => {
  const dir = mkdtempSync(join(tmpdir(), "abas-queue-journal-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  function backlogOf(lines: object[]) {
    const file = join(dir, "queue.jsonl");
    writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
    return readQueueBacklog(file);
  }
  const actions = [1, 2, 3].map((id) => ({ a: id, h: HASH, t: id === 2 ? 0 : 1, p: 0 }));

  it("puts the kept actions of a voided batch back in the queue and forgets the refused ones", () => {
    // A crash right after the void line: nothing re-batched them yet
    const backlog = backlogOf([...actions, { b: 1, ids: [1, 2, 3] }, { v: 1, drop: [2] }]);
    assert.deepEqual(
      backlog.unbatched.map((action) => action.id),
      [1, 3],
    );
    assert.deepEqual(backlog.openBatches, []);
    assert.equal(backlog.nextBatchId, 2);
  });

  it("leaves them to the batch that took them again", () => {
    const backlog = backlogOf([
      ...actions,
      { b: 1, ids: [1, 2, 3] },
      { v: 1, drop: [2] },
      { b: 2, ids: [1, 3] },
    ]);
    assert.deepEqual(backlog.unbatched, []);
    assert.deepEqual(
      backlog.openBatches.map(({ batch }) => [batch.id, batch.actionIds]),
      [[2, [1, 3]]],
    );
  });

  it("refuses a file whose middle was zeroed out (a damaged disk) instead of reading past it", () => {
    // Given a queue whose batch line and the start of the next action read as zeros (a fault
    // injected by hand): read past, its actions would be batched again under another root
    const file = join(dir, "queue.jsonl");
    const text = [...actions, { b: 1, ids: [1, 2, 3] }, { a: 4, h: HASH, t: 1, p: 0 }]
      .map((line) => `${JSON.stringify(line)}\n`)
      .join("");
    const damagedFrom = text.indexOf('{"b"');
    writeFileSync(file, text.slice(0, damagedFrom) + "\0".repeat(40) + text.slice(damagedFrom + 40));
    // Then reading it back fails with ABAS_SDK__ATTESTOR_QUEUE_CORRUPT, naming the damaged line
    assert.throws(
      () => readQueueBacklog(file),
      (error) => isAbasError(error, ABAS_SDK__ATTESTOR_QUEUE_CORRUPT) && error.context.line === 4,
    );
  });
});
