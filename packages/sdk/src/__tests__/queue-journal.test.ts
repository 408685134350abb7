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

  it("reads a line written again under its id (its first flush failed) as the last one, and refuses an action in two open batches", () => {
    const action = (a: number, digit = String(a)) => ({ a, h: digit.repeat(64), t: 1, p: 0 });
    // Given a queue where action 2 and batch 1 were each written again after a failed flush
    const backlog = backlogOf([
      action(1),
      action(2, "5"),
      action(2),
      { b: 1, ids: [1] },
      { b: 1, ids: [1, 2] },
    ]);
    // Then the last of each counts
    assert.deepEqual(
      backlog.openBatches.map(({ batch, actions }) => [batch.id, actions.map((each) => each.actionHash[0])]),
      [[1, ["1", "2"]]],
    );
    // And a queue that puts an action in two open batches, or twice in one, is refused by name
    const damaged: Array<[string, object[], number, string]> = [
      [
        "an action in two open batches",
        [action(1), action(2), { b: 1, ids: [1, 2] }, { b: 2, ids: [2] }],
        4,
        "action 2 would be in two open batches at once",
      ],
      [
        "an action twice in one batch",
        [action(1), { b: 1, ids: [1, 1] }],
        2,
        "action 1 would be in two open batches at once",
      ],
    ];
    for (const [what, lines, line, reason] of damaged) {
      assert.throws(
        () => backlogOf(lines),
        (error) =>
          isAbasError(error, ABAS_SDK__ATTESTOR_QUEUE_CORRUPT) &&
          error.context.line === line &&
          error.context.reason === reason,
        what,
      );
    }
  });

  it("refuses a line of the right shape whose values the queue never writes, naming the line", () => {
    // Given queues edited by hand, each with one such line after a good one: read as they are,
    // the sender thread would stop at the first (a hash that is not hex) or batch under a
    // different root than the one recorded (a private action without its salt)
    const good = { a: 1, h: HASH, t: 1, p: 0 };
    const salt = "cd".repeat(32);
    const edited: Record<string, object> = {
      "a hash that is not hex": { a: 2, h: "zz", t: 1, p: 0 },
      "a hash in capitals": { a: 2, h: HASH.toUpperCase(), t: 1, p: 0 },
      "a fractional id": { a: 1.5, h: HASH, t: 1, p: 0 },
      "an id of 0": { a: 0, h: HASH, t: 1, p: 0 },
      "a negative action type": { a: 2, h: HASH, t: -1, p: 0 },
      "privacy without a salt": { a: 2, h: HASH, t: 1, p: 1 },
      "a salt that is not hex": { a: 2, h: HASH, t: 1, p: 1, s: "zz" },
      "a salt without privacy": { a: 2, h: HASH, t: 1, p: 0, s: salt },
      "a batch of no action": { b: 1, ids: [] },
      "a batch naming a fractional id": { b: 1, ids: [1.5] },
      "a done line of a text id": { d: "1" },
      "a void line dropping a text id": { v: 1, drop: ["1"] },
    };
    for (const [what, line] of Object.entries(edited)) {
      assert.throws(
        () => backlogOf([good, line]),
        (error) =>
          isAbasError(error, ABAS_SDK__ATTESTOR_QUEUE_CORRUPT) &&
          error.context.line === 2 &&
          error.context.reason === "not a queue entry",
        what,
      );
    }
    // And a private action with its salt is read as it was written
    assert.deepEqual(backlogOf([good, { a: 2, h: HASH, t: 1, p: 1, s: salt }]).unbatched[1], {
      id: 2,
      actionHash: HASH,
      actionType: 1,
      privacyMode: true,
      salt,
    });
  });
});
