/**
 * The data directory holds the faucet's secret key: only its owner may read it. Files are created
 * private (0600, the directory 0700) whatever the umask, and a directory made by an older version
 * with wider modes is tightened at start.
 */
import assert from "node:assert/strict";
import { chmodSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { resolveLedgerConfig } from "../config.js";
import { openLedger } from "../ledger/open-ledger.js";
import { silentLogger } from "../logger.js";
import { dataDirPaths } from "../storage/data-dir.js";
import { temporaryDataDir } from "./support/ledger-under-test.js";

const modeOf = (path: string): number => statSync(path).mode & 0o777;

function everyFile(paths: ReturnType<typeof dataDirPaths>): string[] {
  const snapshots = readdirSync(paths.snapshots).map((name) => join(paths.snapshots, name));
  const locks = readdirSync(paths.lock).map((name) => join(paths.lock, name));
  return [paths.genesis, paths.faucetKeypair, paths.eventLog, ...locks, ...snapshots];
}

test("the ledger's files are readable by their owner only, even under a permissive umask", async () => {
  const dataDir = temporaryDataDir();
  const umask = process.umask(0o000);
  try {
    // Given a process whose umask lets everyone read new files
    // When a new ledger is created
    const opened = await openLedger(resolveLedgerConfig({ dataDir: dataDir.path }), silentLogger);
    const paths = dataDirPaths(dataDir.path);

    // Then the directories are 0700 and every file, the faucet's secret key first, is 0600
    assert.equal(modeOf(paths.root).toString(8), "700");
    assert.equal(modeOf(paths.snapshots).toString(8), "700");
    assert.equal(modeOf(paths.lock).toString(8), "700");
    for (const file of everyFile(paths)) assert.equal(modeOf(file).toString(8), "600", file);
    opened.close();
  } finally {
    process.umask(umask);
    dataDir.remove();
  }
});

test("a data directory left readable by others is made private at start", async () => {
  const dataDir = temporaryDataDir();
  try {
    // Given a ledger directory whose key file and directory were left world-readable
    const first = await openLedger(resolveLedgerConfig({ dataDir: dataDir.path }), silentLogger);
    first.close();
    const paths = dataDirPaths(dataDir.path);
    chmodSync(paths.root, 0o755);
    chmodSync(paths.faucetKeypair, 0o644);

    // When it is opened again
    const second = await openLedger(resolveLedgerConfig({ dataDir: dataDir.path }), silentLogger);

    // Then the directory and the key file are private again
    assert.equal(modeOf(paths.root).toString(8), "700");
    assert.equal(modeOf(paths.faucetKeypair).toString(8), "600");
    second.close();
  } finally {
    dataDir.remove();
  }
});
