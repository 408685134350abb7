import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";

import {
  QUEUE_FILE_NAME,
  QUEUE_SPACE_STEP_BYTES,
  QueueJournal,
  readQueueBacklog,
} from "../attestor/queue-journal.js";

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

  it("reads a line written after space a writer reserved and never wrote, and drops a torn line's tail", () => {
    // Given a file as a kill -9 or a power loss can leave it (written by hand, in the queue's
    // format): action 1; space reserved for a line that was never written; action 2; the tail of
    // a line whose start never reached the disk; action 3; and zero-filled space
    const file = join(dir, "queue.jsonl");
    const line = (entry: object): string => `${JSON.stringify(entry)}\n`;
    writeFileSync(
      file,
      line(actions[0]!) +
        "\0".repeat(40) +
        line(actions[1]!) +
        "\0".repeat(4_096) +
        '"ids":[1,2]}\n' +
        line(actions[2]!) +
        "\0".repeat(8_192),
    );
    // Then the three actions are read back, in order, and nothing else
    const backlog = readQueueBacklog(file);
    assert.deepEqual(
      backlog.unbatched.map((action) => action.id),
      [1, 2, 3],
    );
    assert.deepEqual(backlog.openBatches, []);
  });
});

describe("the attestor's queue file, written", () => {
  const newDir = (): string => mkdtempSync(join(tmpdir(), "abas-queue-journal-"));
  const dirs: string[] = [];
  after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const action = (id: number) => ({ id, actionHash: HASH, actionType: 1, privacyMode: false });

  it("writes lines into zero-filled space, so a flush never changes the file's size", () => {
    // Given a queue opened in a new directory
    const dir = newDir();
    dirs.push(dir);
    const { journal } = QueueJournal.open(dir, "fsync");
    const file = join(dir, QUEUE_FILE_NAME);
    // Then its file is zero-filled ahead
    assert.equal(statSync(file).size, QUEUE_SPACE_STEP_BYTES);
    // When actions and a batch are written
    for (const id of [1, 2, 3]) journal.appendAction(action(id));
    journal.appendBatch({ id: 1, actionIds: [1, 2] });
    // Then the file kept its size, and reads back as written
    assert.equal(statSync(file).size, QUEUE_SPACE_STEP_BYTES);
    assert.equal(journal.size(), readFileSync(file, "utf8").replaceAll("\0", "").length);
    const backlog = readQueueBacklog(file);
    assert.deepEqual(
      [backlog.openBatches.map(({ batch }) => batch.actionIds), backlog.unbatched.map(({ id }) => id)],
      [[[1, 2]], [3]],
    );
    journal.close();
  });

  it("gives each of two writers (the attestor's threads) its own place, and zero-fills further as lines need", () => {
    // Given a queue and a second writer attached to it, as the sender thread is
    const dir = newDir();
    dirs.push(dir);
    const { journal } = QueueJournal.open(dir, "write");
    const sender = QueueJournal.attach(journal.shared, "write");
    // When both write, in turns, more lines than the first zero-filled step holds
    const count = Math.ceil((2 * QUEUE_SPACE_STEP_BYTES) / 100);
    for (let id = 1; id <= count; id++) {
      journal.appendAction(action(id));
      if (id % 100 === 0) sender.appendBatch({ id: id / 100, actionIds: [id - 99, id] });
    }
    journal.close();
    // Then the file grew in whole steps, and every line reads back
    const file = join(dir, QUEUE_FILE_NAME);
    assert.equal(statSync(file).size % QUEUE_SPACE_STEP_BYTES, 0);
    assert.ok(statSync(file).size > 2 * QUEUE_SPACE_STEP_BYTES);
    const backlog = readQueueBacklog(file);
    assert.equal(backlog.nextActionId, count + 1);
    assert.equal(backlog.openBatches.length, Math.floor(count / 100));
    assert.equal(backlog.unbatched.length, count - 2 * Math.floor(count / 100));
  });

  it("empties the file at truncate and zero-fills its first step again", () => {
    const dir = newDir();
    dirs.push(dir);
    const { journal } = QueueJournal.open(dir, "fsync");
    for (let id = 1; id <= 10; id++) journal.appendAction(action(id));
    journal.truncate();
    journal.appendAction(action(11));
    journal.close();
    const file = join(dir, QUEUE_FILE_NAME);
    assert.equal(statSync(file).size, QUEUE_SPACE_STEP_BYTES);
    assert.deepEqual(
      readQueueBacklog(file).unbatched.map(({ id }) => id),
      [11],
    );
  });
});
