/**
 * Recovery from the data directory, in process: the log tail after the newest snapshot is
 * replayed with its recorded clocks, a torn last record is cut off, a damaged record the ledger had
 * confirmed is refused, a failed sync leaves no snapshot past the disk, an unreadable snapshot is
 * skipped for the one before it, and an unfinished genesis starts over. The one fake here is a
 * fault injected on purpose: a failing fdatasync.
 */
import assert from "node:assert/strict";
import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { generateKeyPairSigner, type Address } from "@solana/kit";

import { resolveLedgerConfig } from "../config.js";
import {
  LedgerGenesisMissingError,
  LedgerLogDamagedError,
  LedgerLogTruncatedError,
  openLedger,
  type OpenedLedger,
} from "../ledger/open-ledger.js";
import { readKeypairFile } from "../ledger/keypair-file.js";
import { silentLogger } from "../logger.js";
import { dataDirPaths } from "../storage/data-dir.js";
import { EventLog, type ScannedFrame } from "../storage/event-log.js";
import { decodeLogRecord, durableMarkKey, encodeLogRecord } from "../storage/log-record.js";
import { failingFdatasync } from "./support/failing-fdatasync.js";
import { failingSnapshotWrites } from "./support/failing-snapshot-writes.js";
import { temporaryDataDir } from "./support/ledger-under-test.js";

async function open(dataDir: string, snapshotEvery = 1_000_000): Promise<OpenedLedger> {
  // A ledger of these tests left open stands for a process that died: its lock goes with it.
  rmSync(dataDirPaths(dataDir).lock, { recursive: true, force: true });
  return await openLedger(resolveLedgerConfig({ dataDir, snapshotEvery, slotMs: 50 }), silentLogger);
}

async function airdrops(
  opened: OpenedLedger,
  count: number,
): Promise<{ recipient: Address; signature: string }[]> {
  const done = [];
  for (let i = 0; i < count; i += 1) {
    const recipient = (await generateKeyPairSigner()).address;
    const result = await opened.ledger.requestAirdrop(recipient, 1_000_000_000n + BigInt(i));
    assert.ok("signature" in result, JSON.stringify(result));
    done.push({ recipient, signature: result.signature });
  }
  return done;
}

/** Everything a client could read about these airdrops. */
function observe(opened: OpenedLedger, drops: { recipient: Address; signature: string }[]) {
  const { ledger } = opened;
  return drops.map(({ recipient, signature }) => {
    const found = ledger.transaction(signature);
    return {
      balance: ledger.balance(recipient),
      slot: found?.entry.slot,
      blockTime: found?.entry.blockTime,
      meta: found?.record.meta,
      history: ledger.signaturesForAddress(recipient, { limit: 10 }).map((entry) => entry.signature),
    };
  });
}

/**
 * A ledger in `dataDir` that confirmed `count` airdrops, one at a time, and then died: never closed,
 * so no final snapshot covers them. Returns the airdrops and what a client read of them.
 */
async function diedAfterAirdrops(dataDir: string, count: number, options: { ticking?: boolean } = {}) {
  const first = await open(dataDir);
  if (options.ticking === true) first.ledger.startTicking(50);
  const drops = await airdrops(first, count);
  const before = observe(first, drops);
  first.ledger.close = () => {};
  return { drops, before };
}

test("the log after the newest snapshot is replayed with the recorded clocks", async () => {
  const dataDir = temporaryDataDir();
  try {
    // Given a ledger that took transactions after its last snapshot and then died (never closed)
    const { drops, before } = await diedAfterAirdrops(dataDir.path, 20, { ticking: true });

    // When it is opened again
    const second = await open(dataDir.path);

    // Then the 20 transactions were replayed and read exactly as before
    assert.equal(second.startup.kind, "recovered");
    assert.equal(second.startup.replayedTransactions, 20);
    assert.deepEqual(observe(second, drops), before);
    assert.ok(second.ledger.currentSlot() > before[19]!.slot!);
    second.close();
  } finally {
    dataDir.remove();
  }
});

test("a torn last record is cut off and the ledger goes on from the record before it", async () => {
  const dataDir = temporaryDataDir();
  try {
    // Given a ledger whose last append was cut short by a crash
    const { drops, before } = await diedAfterAirdrops(dataDir.path, 3);
    appendFileSync(dataDirPaths(dataDir.path).eventLog, Uint8Array.of(200, 1, 0, 0, 7, 7, 7, 7, 1, 2, 3));

    // When it is opened again
    const second = await open(dataDir.path);

    // Then the torn bytes are gone, the complete records are all there, and new ones append fine
    assert.equal(second.startup.tornBytes, 11);
    assert.deepEqual(observe(second, drops), before);
    await airdrops(second, 1);
    second.close();
    const third = await open(dataDir.path);
    assert.equal(third.startup.tornBytes, 0);
    assert.equal(third.ledger.history.size, second.ledger.history.size);
    third.close();
  } finally {
    dataDir.remove();
  }
});

/** The transaction records of the log after the newest snapshot, in order. */
function transactionFramesAfterSnapshot(dataDir: string): ScannedFrame[] {
  const paths = dataDirPaths(dataDir);
  const newest = readdirSync(paths.snapshots).sort().at(-1)!;
  const log = EventLog.open(paths.eventLog);
  try {
    const scan = log.scan(Number(/snapshot-(\d+)\.bin/.exec(newest)![1]));
    assert.equal(scan.tornBytes, 0);
    return scan.frames.filter((frame) => decodeLogRecord(frame.payload).kind === "transaction");
  } finally {
    log.close();
  }
}

test("a damaged record that the ledger had confirmed is refused, naming the byte and the ways out", async () => {
  const dataDir = temporaryDataDir();
  try {
    // Given a ledger that confirmed 4 transactions, one at a time, and then died (never closed),
    // and whose disk then damaged a byte of the second one's record
    const { drops, before } = await diedAfterAirdrops(dataDir.path, 4);
    const paths = dataDirPaths(dataDir.path);
    const damaged = transactionFramesAfterSnapshot(dataDir.path)[1]!;
    const intact = readFileSync(paths.eventLog);
    const log = Buffer.from(intact);
    log[damaged.offset + damaged.length - 20]! ^= 0x01;
    writeFileSync(paths.eventLog, log);
    const snapshotsBefore = readdirSync(paths.snapshots).sort();

    // When it is opened again
    const reopening = open(dataDir.path);

    // Then it refuses, says where the damage is, that it was confirmed and what to do, and changes
    // nothing on disk (cutting the log there would have lost the 3 transactions from it on)
    await assert.rejects(reopening, (error: unknown) => {
      assert.ok(error instanceof LedgerLogDamagedError, String(error));
      assert.equal(error.logPath, paths.eventLog);
      assert.equal(error.damagedAt, damaged.offset);
      assert.ok(error.durableEnd > damaged.offset);
      assert.ok(
        error.message.startsWith(`${paths.eventLog} is damaged at byte ${damaged.offset}:`),
        error.message,
      );
      assert.match(error.message, /covers transactions the ledger confirmed/);
      assert.match(error.message, /restore ledger\.log from a backup/);
      assert.ok(error.message.includes(`truncate -s ${damaged.offset} ${paths.eventLog}`), error.message);
      assert.match(error.message, /--reset/);
      return true;
    });
    assert.deepEqual(readFileSync(paths.eventLog), log);
    assert.deepEqual(readdirSync(paths.snapshots).sort(), snapshotsBefore);

    // And cutting the log where the message says keeps the transaction before the damage only
    truncateSync(paths.eventLog, damaged.offset);
    const cut = await open(dataDir.path);
    assert.deepEqual(observe(cut, drops.slice(0, 1)), before.slice(0, 1));
    assert.equal(cut.ledger.transaction(drops[1]!.signature), undefined);
    cut.ledger.close = () => {};

    // And the intact log restored from a backup brings every transaction back
    writeFileSync(paths.eventLog, intact);
    const restored = await open(dataDir.path);
    assert.deepEqual(observe(restored, drops), before);
    restored.close();
  } finally {
    dataDir.remove();
  }
});

test("damage that erased a confirmed record's length, or a whole sector or block, is refused all the same", async () => {
  const damages = {
    "length zeroed": (log: Buffer, at: number) => log.fill(0, at, at + 4),
    "header zeroed": (log: Buffer, at: number) => log.fill(0, at, at + 8),
    "512-byte sector zeroed": (log: Buffer, at: number) => log.fill(0, at, at + 512),
    "4 KiB block zeroed": (log: Buffer, at: number) => {
      const block = Math.floor(at / 4096) * 4096;
      return log.fill(0, block, block + 4096);
    },
  };
  for (const [name, damage] of Object.entries(damages)) {
    const dataDir = temporaryDataDir();
    try {
      // Given a ledger that confirmed 8 transactions, one at a time, then died, and whose disk
      // then lost the start of the second one's record in this way
      const { drops, before } = await diedAfterAirdrops(dataDir.path, 8);
      const paths = dataDirPaths(dataDir.path);
      const damaged = transactionFramesAfterSnapshot(dataDir.path)[1]!;
      const log = damage(readFileSync(paths.eventLog), damaged.offset);
      writeFileSync(paths.eventLog, log);

      // When it is opened again, then it refuses at or before that record and changes nothing
      await assert.rejects(open(dataDir.path), (error: unknown) => {
        assert.ok(error instanceof LedgerLogDamagedError, `${name}: ${String(error)}`);
        assert.ok(error.damagedAt <= damaged.offset, name);
        assert.ok(error.durableEnd > damaged.offset, name);
        return true;
      });
      assert.deepEqual(readFileSync(paths.eventLog), log, name);
      assert.equal(drops.length, before.length);
    } finally {
      dataDir.remove();
    }
  }
});

test("a damaged record in the unsynced tail is cut off as torn, even with a later record on disk", async () => {
  const dataDir = temporaryDataDir();
  try {
    // Given a ledger that died while its last writes were not yet synced, and a disk that kept a
    // later one of those writes (a durable mark, which can only name what was on disk before the
    // tail: here its start) but not the one before it; and a forged mark, as a client could put in
    // a transaction's bytes, claiming the whole log but without the ledger's key
    const { drops, before } = await diedAfterAirdrops(dataDir.path, 3);
    const paths = dataDirPaths(dataDir.path);
    const tailStart = readFileSync(paths.eventLog).length;
    appendFileSync(paths.eventLog, Uint8Array.of(20, 0, 0, 0, 0, 0, 0, 0, ...new Uint8Array(20)));
    const key = durableMarkKey(readKeypairFile(paths.faucetKeypair).bytes);
    const log = EventLog.open(paths.eventLog);
    log.append(encodeLogRecord({ kind: "durable-mark", key, end: tailStart }));
    const forged = { kind: "durable-mark", key: new Uint8Array(16), end: log.end } as const;
    log.append(encodeLogRecord(forged));
    log.close();

    // When it is opened again
    const second = await open(dataDir.path);

    // Then the unsynced frames are cut off and every confirmed transaction is there
    assert.equal(second.startup.tornBytes, 28 + 2 * (8 + 25));
    assert.deepEqual(observe(second, drops), before);
    second.close();
  } finally {
    dataDir.remove();
  }
});

test("after a failed sync, shutdown writes no snapshot past the disk, so a power loss then still restarts", async () => {
  const dataDir = temporaryDataDir();
  // The fault, injected on purpose: the next fdatasync of the log fails as a failing disk's would.
  const fdatasync = failingFdatasync();
  try {
    // Given a ledger that confirmed 3 transactions, then failed to sync the 4th, then was stopped
    const first = await open(dataDir.path);
    const drops = await airdrops(first, 3);
    const before = observe(first, drops);
    const paths = dataDirPaths(dataDir.path);
    const onDisk = statSync(paths.eventLog).size;
    const snapshotsBefore = readdirSync(paths.snapshots).sort();
    fdatasync.failNext();
    const recipient = (await generateKeyPairSigner()).address;
    // (the transaction whose sync failed may or may not be on the disk; the next one never ran)
    await assert.rejects(first.ledger.requestAirdrop(recipient, 2_000_000_000n), {
      name: "LedgerWriteError",
      outcome: "unknown",
      message: /EIO: i\/o error, fdatasync\): whether this transaction landed is known only after a restart/,
    });
    await assert.rejects(first.ledger.requestAirdrop(recipient, 2_000_000_001n), {
      name: "LedgerWriteError",
      outcome: "not applied",
      message: /refuses transactions since it could not write its event log \(EIO.*this one was not applied/,
    });
    first.close();

    // Then no snapshot covers the record whose sync failed
    assert.deepEqual(readdirSync(paths.snapshots).sort(), snapshotsBefore);

    // And after a power loss that drops that record, the ledger starts with the 3 confirmed ones
    truncateSync(paths.eventLog, onDisk);
    const second = await open(dataDir.path);
    assert.deepEqual(observe(second, drops), before);
    second.close();
  } finally {
    fdatasync.restore();
    dataDir.remove();
  }
});

test("a log that lost its tail after a clean stop is refused, naming the file and the way out", async () => {
  const dataDir = temporaryDataDir();
  try {
    // Given a ledger stopped cleanly (its final snapshot covers the whole log) whose disk then lost
    // the last bytes of the log
    const first = await open(dataDir.path);
    const drops = await airdrops(first, 3);
    const before = observe(first, drops);
    first.close();
    const paths = dataDirPaths(dataDir.path);
    const backup = readFileSync(paths.eventLog);
    const fullSize = backup.length;
    truncateSync(paths.eventLog, fullSize - 10);
    const logBefore = readFileSync(paths.eventLog);
    const snapshotsBefore = readdirSync(paths.snapshots).sort();

    // When it is opened again
    const reopening = open(dataDir.path);

    // Then it refuses, says which file lost how much and what to do, and changes nothing on disk
    await assert.rejects(reopening, (error: unknown) => {
      assert.ok(error instanceof LedgerLogTruncatedError, String(error));
      assert.equal(error.logPath, paths.eventLog);
      assert.equal(error.logEnd, fullSize - 10);
      assert.equal(error.snapshotOffset, fullSize);
      assert.ok(error.message.includes(`${paths.eventLog} ends at byte ${fullSize - 10}`), error.message);
      assert.match(error.message, /10 bytes of confirmed transactions are missing/);
      assert.match(error.message, /restore .*ledger\.log from a backup/);
      assert.match(error.message, /--reset/);
      return true;
    });
    assert.deepEqual(readFileSync(paths.eventLog), logBefore);
    assert.deepEqual(readdirSync(paths.snapshots).sort(), snapshotsBefore);

    // And once the log is restored from the backup, the ledger opens with every transaction
    writeFileSync(paths.eventLog, backup);
    const restored = await open(dataDir.path);
    assert.deepEqual(observe(restored, drops), before);
    restored.close();
  } finally {
    dataDir.remove();
  }
});

test("an unreadable newest snapshot is skipped for the previous one", async () => {
  const dataDir = temporaryDataDir();
  try {
    // Given two snapshots, the newest one damaged
    const first = await open(dataDir.path, 5);
    const drops = await airdrops(first, 12);
    const before = observe(first, drops);
    first.close();
    const snapshots = dataDirPaths(dataDir.path).snapshots;
    const names = readdirSync(snapshots).sort();
    assert.equal(names.length, 2);
    writeFileSync(join(snapshots, names[1]!), "not a snapshot");

    // When it is opened again
    const second = await open(dataDir.path, 5);

    // Then the older snapshot plus a longer replay give the same ledger
    assert.ok(second.startup.replayedTransactions > 0);
    assert.deepEqual(observe(second, drops), before);
    second.close();
  } finally {
    dataDir.remove();
  }
});

test("a genesis that did not finish starts over", async () => {
  const dataDir = temporaryDataDir();
  try {
    // Given a directory where genesis wrote its log but died before genesis.json: what it leaves
    // is the mark of a genesis under way and no genesis.json
    const first = await open(dataDir.path);
    first.close();
    const paths = dataDirPaths(dataDir.path);
    rmSync(paths.genesis);
    writeFileSync(paths.genesisPending, "");

    // When it is opened again
    const second = await open(dataDir.path);

    // Then genesis ran again and the program is deployed
    assert.equal(second.startup.kind, "genesis");
    assert.equal(second.ledger.account(second.ledger.programId)?.executable, true);
    second.close();
  } finally {
    dataDir.remove();
  }
});

test("a ledger whose genesis.json was removed is refused, not erased: LedgerGenesisMissingError", async () => {
  const dataDir = temporaryDataDir();
  try {
    // Given a ledger with transactions whose genesis.json is then lost
    const first = await open(dataDir.path);
    const drops = await airdrops(first, 3);
    const seen = observe(first, drops);
    first.close();
    const paths = dataDirPaths(dataDir.path);
    const logBytes = statSync(paths.eventLog).size;
    rmSync(paths.genesis);

    // When it is opened again, it is refused by name, and nothing of it is erased
    await assert.rejects(open(dataDir.path), (error: unknown) => {
      assert.ok(error instanceof LedgerGenesisMissingError, String(error));
      assert.match(error.message, /not its genesis\.json.*Restore genesis\.json from a backup.*--reset/);
      return true;
    });
    assert.equal(statSync(paths.eventLog).size, logBytes);
    assert.ok(existsSync(paths.faucetKeypair));

    // And once genesis.json is back, every transaction is there
    writeFileSync(paths.genesis, JSON.stringify(first.ledger.genesis, null, 2) + "\n");
    const restored = await open(dataDir.path);
    assert.equal(restored.startup.kind, "recovered");
    assert.deepEqual(observe(restored, drops), seen);
    restored.close();
  } finally {
    dataDir.remove();
  }
});

test("a snapshot that cannot be written (a full disk) is logged and the ledger goes on; the log recovers everything", async () => {
  const dataDir = temporaryDataDir();
  let snapshotWrites: ReturnType<typeof failingSnapshotWrites> | undefined;
  try {
    // Given a ledger that snapshots every 2 transactions, on a disk where no snapshot fits any more
    // (the fault, injected on purpose: support/failing-snapshot-writes.ts)
    const first = await open(dataDir.path, 2);
    snapshotWrites = failingSnapshotWrites();
    const drops = await airdrops(first, 5);
    const seen = observe(first, drops);

    // Then every transaction was confirmed, the snapshots were tried, and the ledger stays healthy
    assert.ok(snapshotWrites.failed() >= 2, `${snapshotWrites.failed()} snapshots tried`);
    assert.equal(first.ledger.unhealthy, undefined);
    first.close();
    snapshotWrites.restore();
    assert.deepEqual(
      readdirSync(dataDirPaths(dataDir.path).snapshots).filter((name) => name.includes(".tmp-")),
      [],
      "no temporary file is left behind",
    );

    // And a restart replays the log: nothing is lost
    const second = await open(dataDir.path);
    assert.equal(second.startup.kind, "recovered");
    assert.deepEqual(observe(second, drops), seen);
    second.close();
  } finally {
    snapshotWrites?.restore();
    dataDir.remove();
  }
});

test("genesis whose snapshot cannot be written does not finish: nothing is confirmed on a ledger recovery could not start from", async () => {
  const dataDir = temporaryDataDir();
  // The fault, injected on purpose (support/failing-snapshot-writes.ts): no snapshot fits on the disk
  const snapshotWrites = failingSnapshotWrites();
  try {
    await assert.rejects(open(dataDir.path), /ENOSPC/);
    const paths = dataDirPaths(dataDir.path);
    assert.ok(!existsSync(paths.genesis), "genesis.json is not written");
    assert.ok(existsSync(paths.genesisPending), "the folder still says a genesis is under way");
    snapshotWrites.restore();

    // And once the disk has room, the next start runs genesis again
    const second = await open(dataDir.path);
    assert.equal(second.startup.kind, "genesis");
    second.close();
  } finally {
    snapshotWrites.restore();
    dataDir.remove();
  }
});

test("a genesis mark left by a crash after genesis.json is removed at the next start", async () => {
  const dataDir = temporaryDataDir();
  try {
    const first = await open(dataDir.path);
    first.close();
    const paths = dataDirPaths(dataDir.path);
    writeFileSync(paths.genesisPending, "");
    const second = await open(dataDir.path);
    assert.equal(second.startup.kind, "recovered");
    assert.ok(!existsSync(paths.genesisPending));
    second.close();
  } finally {
    dataDir.remove();
  }
});
