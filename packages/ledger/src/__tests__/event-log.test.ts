/**
 * The event log's framing: records read back exactly, a torn or corrupted tail is detected, the
 * frames after a damaged one can still be read, and the log knows how far it is on disk.
 */
import assert from "node:assert/strict";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { EventLog } from "../storage/event-log.js";
import { temporaryDataDir } from "./support/ledger-under-test.js";

const payload = (n: number): Uint8Array => Uint8Array.from({ length: 10 + n }, (_, i) => (i * 7 + n) % 256);

test("appended records scan back in order, and read back by position", () => {
  const dir = temporaryDataDir();
  try {
    // Given three appended records
    const path = join(dir.path, "ledger.log");
    const log = EventLog.open(path);
    const positions = [1, 2, 3].map((n) => log.append(payload(n)));
    log.close();

    // When the file is reopened and scanned
    const reopened = EventLog.open(path);
    const scan = reopened.scan(EventLog.firstRecordOffset);

    // Then every record is there, nothing is torn, and each reads back from its position
    assert.deepEqual(
      scan.frames.map((frame) => frame.payload),
      [payload(1), payload(2), payload(3)],
    );
    assert.equal(scan.tornBytes, 0);
    assert.deepEqual(reopened.read(positions[1]!), payload(2));
    reopened.close();
  } finally {
    dir.remove();
  }
});

test("a half-written or corrupted last record is reported as torn and can be cut off", () => {
  for (const damage of ["half-written", "bit flip", "zero fill"] as const) {
    const dir = temporaryDataDir();
    try {
      // Given two records and a damaged third
      const path = join(dir.path, "ledger.log");
      const log = EventLog.open(path);
      log.append(payload(1));
      const second = log.append(payload(2));
      const third = log.append(payload(3));
      log.close();
      const bytes = readFileSync(path);
      if (damage === "half-written") writeFileSync(path, bytes.subarray(0, third.offset + 12));
      if (damage === "bit flip") {
        bytes[third.offset + 9] = bytes[third.offset + 9]! ^ 1;
        writeFileSync(path, bytes);
      }
      if (damage === "zero fill") {
        writeFileSync(path, bytes.subarray(0, third.offset));
        appendFileSync(path, new Uint8Array(64));
      }

      // When it is scanned and the torn tail cut
      const reopened = EventLog.open(path);
      const scan = reopened.scan(EventLog.firstRecordOffset);
      reopened.truncate(scan.end);

      // Then the two good records remain and appending continues after them
      assert.equal(scan.frames.length, 2, damage);
      assert.ok(scan.tornBytes > 0, damage);
      assert.equal(scan.end, second.offset + second.length);
      reopened.append(payload(4));
      assert.deepEqual(
        reopened.scan(EventLog.firstRecordOffset).frames.map((frame) => frame.payload),
        [payload(1), payload(2), payload(4)],
      );
      reopened.close();
    } finally {
      dir.remove();
    }
  }
});

test("the frames after damaged ones are found by stepping over each by its declared length", () => {
  const dir = temporaryDataDir();
  try {
    // Given five records, the second and third with a flipped payload byte
    const path = join(dir.path, "ledger.log");
    const log = EventLog.open(path);
    const positions = [1, 2, 3, 4, 5].map((n) => log.append(payload(n)));
    log.close();
    const bytes = readFileSync(path);
    for (const damaged of [positions[1]!, positions[2]!]) bytes[damaged.offset + 9]! ^= 1;
    writeFileSync(path, bytes);

    // When it is scanned, then scanned past the damage
    const reopened = EventLog.open(path);
    const scan = reopened.scan(EventLog.firstRecordOffset);
    const after = reopened.scanPastDamage(scan.end);

    // Then the scan stops at the second record, and the two intact records after it are found
    assert.equal(scan.end, positions[1]!.offset);
    assert.deepEqual(
      after.map((frame) => frame.payload),
      [payload(4), payload(5)],
    );

    // And a damaged length, which says nowhere to step, ends the search
    bytes[positions[1]!.offset + 2] = 0xff;
    writeFileSync(path, bytes);
    const again = EventLog.open(path);
    assert.deepEqual(again.scanPastDamage(positions[1]!.offset), []);
    again.close();
    reopened.close();
  } finally {
    dir.remove();
  }
});

test("durableEnd moves once a flush or a sync covering the appends has returned", async () => {
  const dir = temporaryDataDir();
  try {
    // Given a log with one durable record, on a reopened file
    const path = join(dir.path, "ledger.log");
    const first = EventLog.open(path);
    first.append(payload(1));
    first.close();
    const log = EventLog.open(path);
    const opened = log.end;
    assert.equal(log.durableEnd, opened);

    // When records are appended without waiting for the disk, then synced
    log.append(payload(2), { durable: false });
    assert.equal(log.durableEnd, opened);
    const synced = log.sync();
    log.append(payload(3), { durable: false });
    const beforeThird = log.end - (8 + payload(3).length);
    await synced;

    // Then the sync covered what was appended before it was asked, not the record after it
    assert.equal(log.durableEnd, beforeThird);
    log.flush();
    assert.equal(log.durableEnd, log.end);
    log.truncate(opened);
    assert.equal(log.durableEnd, opened);
    log.close();
  } finally {
    dir.remove();
  }
});

test("a file that is not an event log is refused", () => {
  const dir = temporaryDataDir();
  try {
    const path = join(dir.path, "ledger.log");
    writeFileSync(path, "hello world");
    assert.throws(() => EventLog.open(path), /is not an ABAS ledger event log/);
  } finally {
    dir.remove();
  }
});
