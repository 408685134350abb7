/**
 * One ledger process at a time has a data folder open (`lock/`, `@abas/dir-lock`): a second
 * `abas-ledger` on the folder stops at once naming the first, which serves on, however many start
 * at the same moment; a lock left by a process that no longer runs (kill -9) is taken over; a
 * ledger whose folder was taken over (it was paused past its lock's renewals) writes nothing more.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { directoryLockHolder } from "@abas/dir-lock";
import { createSolanaRpc, generateKeyPairSigner } from "@solana/kit";

import { resolveLedgerConfig } from "../config.js";
import { spawnLedgerProcess } from "../index.js";
import type { LedgerWriteError } from "../ledger/ledger.js";
import { openLedger } from "../ledger/open-ledger.js";
import { silentLogger } from "../logger.js";
import { dataDirPaths } from "../storage/data-dir.js";
import { temporaryDataDir } from "./support/ledger-under-test.js";

test("a data folder another ledger has open: abas-ledger names that process, exit code 1, and the first serves on", async () => {
  // Given a ledger running on a data folder
  const dataDir = temporaryDataDir();
  const first = await spawnLedgerProcess({ dataDir: dataDir.path });
  try {
    // When a second ledger starts on the same folder
    const second = spawnLedgerProcess({ dataDir: dataDir.path });
    // Then it exits before it is ready, naming the folder and the process that has it open
    await assert.rejects(second, (error: Error) => {
      assert.match(error.message, /exited with code 1 before it was ready/);
      assert.ok(
        error.message.includes(
          `abas-ledger: the ledger in ${dataDir.path} is already open in process ${first.pid}`,
        ),
        error.message,
      );
      return true;
    });
    // And the first still answers, with its lock in place
    assert.equal(await createSolanaRpc(first.rpcUrl).getHealth().send(), "ok");
    assert.equal(directoryLockHolder(join(dataDir.path, "lock")), first.pid);
  } finally {
    await first.stop();
    dataDir.remove();
  }
});

test("a lock left by a ledger killed with SIGKILL is taken over", async () => {
  // Given a data folder whose ledger was killed
  const dataDir = temporaryDataDir();
  const killed = await spawnLedgerProcess({ dataDir: dataDir.path });
  process.kill(killed.pid, "SIGKILL");
  await killed.stop();
  // When a ledger starts on it
  const ledger = await spawnLedgerProcess({ dataDir: dataDir.path });
  try {
    // Then it runs, and the lock names it
    assert.equal(await createSolanaRpc(ledger.rpcUrl).getHealth().send(), "ok");
    assert.equal(directoryLockHolder(join(dataDir.path, "lock")), ledger.pid);
  } finally {
    await ledger.stop();
    dataDir.remove();
  }
});

test("the ledger.lock file of earlier versions is no longer read, and is removed", async () => {
  // Given a data folder with the lock file earlier versions wrote, naming a process that runs
  const dataDir = temporaryDataDir();
  const legacyLock = join(dataDir.path, "ledger.lock");
  writeFileSync(legacyLock, `${process.ppid}\n`);
  // When a ledger starts on it, Then it runs and the old file is gone
  const ledger = await spawnLedgerProcess({ dataDir: dataDir.path });
  try {
    assert.equal(await createSolanaRpc(ledger.rpcUrl).getHealth().send(), "ok");
    assert.equal(existsSync(legacyLock), false);
  } finally {
    await ledger.stop();
    dataDir.remove();
  }
});

test("a ledger whose folder another process took over writes nothing more to it", async () => {
  // Given a ledger that confirmed a transaction
  const dataDir = temporaryDataDir();
  const paths = dataDirPaths(dataDir.path);
  const opened = await openLedger(resolveLedgerConfig({ dataDir: dataDir.path }), silentLogger);
  try {
    const recipient = (await generateKeyPairSigner()).address;
    assert.ok("signature" in (await opened.ledger.requestAirdrop(recipient, 1_000_000n)));
    // When another process takes the folder over, as one does after a paused owner stopped
    // renewing its lock (done here by hand: the new owner's lock.2, the old lock.1 removed)
    const [own] = readdirSync(paths.lock);
    writeFileSync(join(paths.lock, "lock.2"), "1");
    rmSync(join(paths.lock, own!));
    const logBytes = statSync(paths.eventLog).size;
    const snapshots = readdirSync(paths.snapshots);
    // Then a transaction is refused, naming the takeover, and nothing reaches the log
    await assert.rejects(
      opened.ledger.requestAirdrop(recipient, 2_000_000n),
      (error: LedgerWriteError) =>
        error.outcome === "not applied" &&
        /^another process took the ledger in .* over; this ledger writes nothing more to it\. This transaction was not applied: send it to the ledger that has the folder now$/.test(
          error.message,
        ),
    );
    assert.equal(statSync(paths.eventLog).size, logBytes);
    // And closing it writes no snapshot into the folder
    opened.close();
    assert.deepEqual(readdirSync(paths.snapshots), snapshots);
    assert.equal(statSync(paths.eventLog).size, logBytes);
  } finally {
    opened.close();
    dataDir.remove();
  }
});

test("abas-ledger whose folder another process took over stops serving: exit code 1, naming the takeover", async () => {
  // Given a ledger process serving a data folder
  const dataDir = temporaryDataDir();
  const paths = dataDirPaths(dataDir.path);
  const ledger = await spawnLedgerProcess({ dataDir: dataDir.path });
  try {
    assert.equal(await createSolanaRpc(ledger.rpcUrl).getHealth().send(), "ok");
    // When another process takes the folder over (by hand, as in the test above)
    const [own] = readdirSync(paths.lock);
    writeFileSync(join(paths.lock, "lock.2"), "1");
    rmSync(join(paths.lock, own!));
    // Then at its next renewal of the lock (every second) it stops, naming the takeover
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      ledger.exited,
      new Promise((resolve) => (timer = setTimeout(resolve, 10_000, "still running"))),
    ]);
    clearTimeout(timer);
    assert.equal(code, 1, ledger.recentLogs());
    assert.ok(
      ledger.recentLogs().includes(`abas-ledger: another process took the ledger in ${dataDir.path} over`),
      ledger.recentLogs(),
    );
    // And it serves nothing more, and left the new owner's lock as it was
    await assert.rejects(createSolanaRpc(ledger.rpcUrl).getHealth().send());
    assert.deepEqual(readdirSync(paths.lock), ["lock.2"]);
    assert.equal(readFileSync(join(paths.lock, "lock.2"), "utf8"), "1");
  } finally {
    await ledger.stop();
    dataDir.remove();
  }
});

test("a file where the ledger keeps its lock folder: abas-ledger names it and stops", async () => {
  const dataDir = temporaryDataDir();
  writeFileSync(join(dataDir.path, "lock"), "a file of someone's");
  try {
    await assert.rejects(spawnLedgerProcess({ dataDir: dataDir.path }), (error: Error) =>
      error.message.includes(`abas-ledger: ${join(dataDir.path, "lock")} is not a folder`),
    );
    assert.equal(readFileSync(join(dataDir.path, "lock"), "utf8"), "a file of someone's");
  } finally {
    dataDir.remove();
  }
});

test("ledgers taking one data folder at the same moment: exactly one has it, every other is refused", async () => {
  // Given four processes that each take the folder's lock at the same instant, and hold it
  const dataDir = temporaryDataDir();
  const module = new URL("../storage/data-dir.ts", import.meta.url).href;
  const start = Date.now() + 2_000;
  const taker = `
    const { dataDirPaths, ensureDataDir, lockDataDir } = await import(${JSON.stringify(module)});
    const paths = dataDirPaths(${JSON.stringify(dataDir.path)});
    ensureDataDir(paths);
    while (Date.now() < ${start}) {}
    try {
      await lockDataDir(paths);
      console.log("locked");
    } catch (error) {
      console.log(error.name === "DataDirLockedError" ? error.name : String(error));
    }
    process.stdin.resume(); // holds the lock until the test closes stdin
  `;
  const takers = Array.from({ length: 4 }, () =>
    spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", taker], {
      stdio: ["pipe", "pipe", "inherit"],
    }),
  );
  try {
    // When each has taken the lock or been refused
    const answers = await Promise.all(
      takers.map(async (child) => {
        const [line] = (await once(child.stdout!, "data")) as [Buffer];
        return line.toString().trim();
      }),
    );
    // Then exactly one took it, and the others were refused with DataDirLockedError
    assert.deepEqual(
      answers.sort(),
      ["DataDirLockedError", "DataDirLockedError", "DataDirLockedError", "locked"],
      answers.join(", "),
    );
  } finally {
    for (const child of takers) child.stdin!.end();
    await Promise.all(takers.map((child) => once(child, "exit")));
    dataDir.remove();
  }
});
