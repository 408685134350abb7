/**
 * Group commit keeps durability: many sends share one fdatasync, and a transaction is confirmed
 * only once the sync covering its record has finished. Two crashes while 16 clients have sends in
 * flight:
 * - `kill -9` of the ledger process (all real parts);
 * - a power loss, which also loses whatever the disk had not synced. The fake here is only for the
 *   fault injected on purpose: `fs.fdatasync`/`fdatasyncSync` are wrapped to note how many bytes
 *   of the log each finished sync covered, and the "disk after the power loss" is a copy of the
 *   data directory with the log cut at that point.
 * And a sync that fails (the other fault injected on purpose: `fs.fdatasync` made to fail once).
 */
import assert from "node:assert/strict";
import fs, { cpSync, fstatSync, rmSync, statSync, truncateSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { test } from "node:test";

import { createSolanaRpc, generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";

import { spawnLedgerProcess } from "../index.js";
import { silentLogger } from "../logger.js";
import { startLedger } from "../start-ledger.js";
import { dataDirPaths } from "../storage/data-dir.js";
import { failingFdatasync } from "./support/failing-fdatasync.js";
import { fundedSigner, kitClients, sleep, temporaryDataDir } from "./support/ledger-under-test.js";
import { latestBlockhash, sendBase64, signTransfer } from "./support/transactions.js";

const CLIENTS = 16;

interface Traffic {
  /** Signatures whose sendTransaction answered (the ledger answers once they are on disk). */
  readonly confirmed: Set<string>;
  stop(): void;
  readonly done: Promise<void>;
}

/** 16 clients, each sending transfers one after the other until stopped or the ledger dies. */
async function startTraffic(rpcUrl: string, wsUrl: string): Promise<Traffic> {
  const clients = kitClients({ rpcUrl, wsUrl });
  const payers: KeyPairSigner[] = [];
  for (let i = 0; i < CLIENTS; i += 1) payers.push(await fundedSigner(clients));
  const recipient = (await generateKeyPairSigner()).address;
  const lifetime = await latestBlockhash(rpcUrl);
  const confirmed = new Set<string>();
  let stopped = false;
  const done = Promise.all(
    payers.map(async (payer, client) => {
      const rpc = createSolanaRpc(rpcUrl);
      for (let i = 1; !stopped; i += 1) {
        const transfer = await signTransfer(payer, recipient, BigInt(client * 100_000 + i), lifetime);
        try {
          await rpc.sendTransaction(transfer.base64 as never, { encoding: "base64" }).send();
        } catch {
          return; // the ledger is gone
        }
        if (!stopped) confirmed.add(transfer.signature);
      }
    }),
  ).then(() => undefined);
  return { confirmed, done, stop: () => (stopped = true) };
}

async function assertAllConfirmed(rpcUrl: string, signatures: readonly string[]): Promise<void> {
  const rpc = createSolanaRpc(rpcUrl);
  for (let i = 0; i < signatures.length; i += 256) {
    const chunk = signatures.slice(i, i + 256);
    const { value } = await rpc.getSignatureStatuses(chunk as never).send();
    value.forEach((status, j) => {
      assert.ok(status !== null, `${chunk[j]} was confirmed before the crash and is gone after it`);
      assert.equal(status.err, null);
      assert.equal(status.confirmationStatus, "finalized");
    });
  }
}

test("kill -9 while 16 clients have sends in flight keeps every transaction a client saw confirmed", async () => {
  const dataDir = temporaryDataDir();
  const ledger = await spawnLedgerProcess({ dataDir: dataDir.path, snapshotEvery: 50 });
  try {
    // Given 16 clients sending transfers as fast as the ledger confirms them
    const traffic = await startTraffic(ledger.rpcUrl, ledger.wsUrl);
    while (traffic.confirmed.size < 200) await sleep(20);

    // When the ledger is killed in the middle of it
    await ledger.kill9();
    traffic.stop();
    await traffic.done;
    const confirmed = [...traffic.confirmed];

    // Then, restarted on the same directory, it has every transaction a client saw confirmed
    const restarted = await spawnLedgerProcess({ dataDir: dataDir.path, snapshotEvery: 50 });
    try {
      await assertAllConfirmed(restarted.rpcUrl, confirmed);
    } finally {
      await restarted.stop();
    }
  } finally {
    await ledger.kill9();
    dataDir.remove();
  }
});

/** The fault: notes, per file, how many bytes the fdatasyncs that finished have covered. */
function recordSyncedBytes(): { syncedBytes: (path: string) => number; restore: () => void } {
  const realAsync = fs.fdatasync;
  const realSync = fs.fdatasyncSync;
  const synced = new Map<number, number>();
  const covered = (fd: number): { inode: number; size: number } => {
    const stat = fstatSync(fd);
    return { inode: stat.ino, size: stat.size };
  };
  const note = ({ inode, size }: { inode: number; size: number }): void => {
    synced.set(inode, Math.max(synced.get(inode) ?? 0, size));
  };
  fs.fdatasync = ((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    const willCover = covered(fd);
    realAsync(fd, (error) => {
      if (error === null) note(willCover);
      callback(error);
    });
  }) as typeof fs.fdatasync;
  fs.fdatasyncSync = (fd: number) => {
    const willCover = covered(fd);
    realSync(fd);
    note(willCover);
  };
  syncBuiltinESMExports();
  return {
    syncedBytes: (path) => synced.get(statSync(path).ino) ?? 0,
    restore: () => {
      fs.fdatasync = realAsync;
      fs.fdatasyncSync = realSync;
      syncBuiltinESMExports();
    },
  };
}

test("a power loss while 16 clients have sends in flight keeps every transaction a client saw confirmed", async () => {
  const dataDir = temporaryDataDir();
  const afterPowerLoss = temporaryDataDir();
  const disk = recordSyncedBytes();
  const ledger = await startLedger({
    dataDir: dataDir.path,
    rpcPort: 0,
    wsPort: 0,
    snapshotEvery: 50,
    logger: silentLogger,
  });
  try {
    // Given 16 clients sending transfers as fast as the ledger confirms them
    const traffic = await startTraffic(ledger.rpcUrl, ledger.wsUrl);
    while (traffic.confirmed.size < 200) await sleep(20);

    // When the power goes (all in one step, so nothing else happens meanwhile): what the clients
    // saw confirmed so far, and a disk holding the log only as far as the finished syncs reached
    const confirmed = [...traffic.confirmed];
    const paths = dataDirPaths(dataDir.path);
    const synced = disk.syncedBytes(paths.eventLog);
    const written = statSync(paths.eventLog).size;
    cpSync(dataDir.path, afterPowerLoss.path, { recursive: true });
    const copied = dataDirPaths(afterPowerLoss.path);
    truncateSync(copied.eventLog, synced);
    // The process that held the lock is gone with the power.
    rmSync(copied.lock, { recursive: true });
    traffic.stop();
    await traffic.done;
    await ledger.stop();

    // Then the ledger on that disk has every transaction a client saw confirmed
    const restarted = await spawnLedgerProcess({ dataDir: afterPowerLoss.path });
    try {
      await assertAllConfirmed(restarted.rpcUrl, confirmed);
    } finally {
      await restarted.stop();
    }
    // (and the power loss did cut records that were written but not synced yet, or there were none)
    assert.ok(synced <= written);
  } finally {
    disk.restore();
    await ledger.stop();
    dataDir.remove();
    afterPowerLoss.remove();
  }
});

test("a send whose sync fails is answered with an unknown outcome, later sends are refused unapplied, and a restart tells which landed", async () => {
  const dataDir = temporaryDataDir();
  // The fault, injected on purpose (support/failing-fdatasync.ts).
  const fdatasync = failingFdatasync();
  const ledger = await startLedger({ dataDir: dataDir.path, rpcPort: 0, wsPort: 0, logger: silentLogger });
  try {
    // Given two transfers signed by a funded payer
    const payer = await fundedSigner(kitClients(ledger));
    const recipient = (await generateKeyPairSigner()).address;
    const lifetime = await latestBlockhash(ledger.rpcUrl);
    const first = await signTransfer(payer, recipient, 1_000_000n, lifetime);
    const second = await signTransfer(payer, recipient, 2_000_000n, lifetime);

    // When the sync covering the first fails, and the second is sent after it
    fdatasync.failNext();
    const firstReply = await sendBase64(ledger.rpcUrl, first);
    const secondReply = await sendBase64(ledger.rpcUrl, second);

    // Then the first is answered -32603 saying its outcome is known after a restart, the second
    // -32603 saying it was not applied
    assert.equal(firstReply.error?.code, -32603);
    assert.match(
      firstReply.error.message,
      /\(EIO: i\/o error, fdatasync\): whether this transaction landed is known only after a restart/,
    );
    assert.equal(secondReply.error?.code, -32603);
    assert.match(
      secondReply.error!.message,
      /since it could not write its event log .*this one was not applied/,
    );
    // And getHealth says the node is unhealthy (Agave's -32005), so a balancer or supervisor sees it
    const health = (await (
      await fetch(ledger.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getHealth" }),
      })
    ).json()) as { error?: { code: number; message: string } };
    assert.equal(health.error?.code, -32005);
    assert.match(
      health.error.message,
      /^Node is unhealthy: a write to its data folder failed \(EIO: .*restarted$/,
    );
    const healthPage = await fetch(new URL("/health", ledger.rpcUrl));
    assert.equal(healthPage.status, 503);
    assert.match(await healthPage.text(), /^unhealthy: a write to its data folder failed/);
    await ledger.stop();
    fdatasync.restore();

    // And after a restart (no power lost: the first record is in the file) the first has landed
    // and the second has not
    const restarted = await spawnLedgerProcess({ dataDir: dataDir.path });
    try {
      const { value } = await createSolanaRpc(restarted.rpcUrl)
        .getSignatureStatuses([first.signature, second.signature] as never)
        .send();
      assert.equal(value[0]?.err, null);
      assert.equal(value[0]?.confirmationStatus, "finalized");
      assert.equal(value[1], null);
    } finally {
      await restarted.stop();
    }
  } finally {
    fdatasync.restore();
    await ledger.stop();
    dataDir.remove();
  }
});
