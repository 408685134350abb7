/**
 * The SQLite file holds API key hashes and web sessions: it and its WAL are readable by their
 * owner only, whatever the umask, and a file an older version left 0644 is tightened on open.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

import { openDatabase } from "../create-database.js";
import { migrateToLatest } from "../migrate.js";

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);

test("a new SQLite database and its WAL are created 0600 even under a permissive umask", async () => {
  const directory = mkdtempSync(join(tmpdir(), "abas-db-modes-"));
  const umask = process.umask(0o000);
  try {
    // Given a process whose umask lets everyone read new files
    // When it creates and migrates a SQLite database
    const file = join(directory, "data", "abas.sqlite");
    const handle = openDatabase({ url: file });
    await migrateToLatest(handle);

    // Then the file, its write-ahead log and the directory made for it are private
    assert.equal(modeOf(file), "600");
    assert.equal(modeOf(`${file}-wal`), "600");
    assert.equal(modeOf(join(directory, "data")), "700");
    await handle.close();
  } finally {
    process.umask(umask);
    rmSync(directory, { recursive: true, force: true });
  }
});

test("a SQLite file left readable by others is made private when opened", async () => {
  const directory = mkdtempSync(join(tmpdir(), "abas-db-modes-"));
  try {
    // Given a database file made world-readable
    const file = join(directory, "abas.sqlite");
    await openDatabase({ url: file }).close();
    chmodSync(file, 0o644);

    // When it is opened again
    const handle = openDatabase({ url: file });

    // Then it is private again
    assert.equal(modeOf(file), "600");
    await handle.close();
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
