/**
 * One ledger process at a time has a data folder open (`lock/`, `@abas/dir-lock`): a second
 * `abas-ledger` on the folder stops at once naming the first, which serves on, however many start
 * at the same moment; a lock left by a process that no longer runs (kill -9) is taken over, and so
 * is the `ledger.lock` of earlier versions.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { directoryLockHolder } from "@abas/dir-lock";
import { createSolanaRpc } from "@solana/kit";

import { spawnLedgerProcess } from "../index.js";
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

test("the ledger.lock of an earlier version: refused while its process runs, removed once it is gone", async () => {
  // Given a data folder whose ledger.lock names a process that runs (this one's parent)
  const dataDir = temporaryDataDir();
  const legacyLock = join(dataDir.path, "ledger.lock");
  writeFileSync(legacyLock, `${process.ppid}\n`);
  // When a ledger starts on it, Then it exits naming that process
  await assert.rejects(spawnLedgerProcess({ dataDir: dataDir.path }), (error: Error) =>
    error.message.includes(`is already open in process ${process.ppid}`),
  );
  // And given instead one naming a process that has exited
  writeFileSync(legacyLock, `${spawnSync(process.execPath, ["-e", "0"]).pid}\n`);
  const ledger = await spawnLedgerProcess({ dataDir: dataDir.path });
  try {
    // Then the ledger runs and the old lock is gone
    assert.equal(await createSolanaRpc(ledger.rpcUrl).getHealth().send(), "ok");
    assert.equal(existsSync(legacyLock), false);
  } finally {
    await ledger.stop();
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
