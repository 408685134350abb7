/**
 * One ledger process at a time has a data folder open (`ledger.lock`, its process id): a second
 * `abas-ledger` on the folder stops at once naming the first, which serves on; a lock left by a
 * process that no longer runs (kill -9) is taken over.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

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
    assert.equal(readFileSync(join(dataDir.path, "ledger.lock"), "utf8").trim(), String(first.pid));
  } finally {
    await first.stop();
    dataDir.remove();
  }
});

test("a lock left by a process that no longer runs is taken over", async () => {
  // Given a data folder whose lock names a process that has exited
  const dataDir = temporaryDataDir();
  const gone = spawnSync(process.execPath, ["-e", "0"]).pid;
  writeFileSync(join(dataDir.path, "ledger.lock"), `${gone}\n`);
  // When a ledger starts on it
  const ledger = await spawnLedgerProcess({ dataDir: dataDir.path });
  try {
    // Then it runs, and the lock names it
    assert.equal(await createSolanaRpc(ledger.rpcUrl).getHealth().send(), "ok");
    assert.equal(readFileSync(join(dataDir.path, "ledger.lock"), "utf8").trim(), String(ledger.pid));
  } finally {
    await ledger.stop();
    dataDir.remove();
  }
});
