/**
 * The event log's framing: records read back exactly, a torn or corrupted tail is detected, frames
 * with a given start are found past damage, and the log knows how far it is on disk.
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

test("frames with a given start are found at any byte, past damage that erased a frame's length", () => {
  const dir = temporaryDataDir();
  try {
    // Given records 1 to 5, where 2 and 4 start with a marker, 5 holds the marker inside its
    // payload, and record 1's header and 3's payload are damaged
    const marker = Uint8Array.of(9, 9, 9);
    const marked = (n: number) => Uint8Array.of(...marker, n, n, n);
    const path = join(dir.path, "ledger.log");
    const log = EventLog.open(path);
    const positions = [
      log.append(payload(1)),
      log.append(marked(2)),
      log.append(payload(3)),
      log.append(marked(4)),
      log.append(Uint8Array.of(0, ...marker, 5, 5)),
    ];
    log.close();
    const bytes = readFileSync(path);
    bytes.fill(0, positions[0]!.offset, positions[0]!.offset + 8);
    bytes[positions[2]!.offset + 9]! ^= 1;
    writeFileSync(path, bytes);

    // When the frames that start with the marker and are 6 bytes long are looked for
    const reopened = EventLog.open(path);
    const found = reopened.findFrames(EventLog.firstRecordOffset, marker, 6);

    // Then both marked records are found where they are, and nothing inside another record is
    assert.deepEqual(
      found.map((frame) => [frame.offset, frame.length, [...frame.payload]]),
      [
        [positions[1]!.offset, positions[1]!.length, [...marked(2)]],
        [positions[3]!.offset, positions[3]!.length, [...marked(4)]],
      ],
    );

    // And a marked record whose checksum fails is not found
    bytes[positions[3]!.offset + 12]! ^= 1;
    writeFileSync(path, bytes);
    const again = EventLog.open(path);
    assert.deepEqual(
      again.findFrames(EventLog.firstRecordOffset, marker, 6).map((frame) => frame.offset),
      [positions[1]!.offset],
    );
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
