/** Writing a receipts folder: files only the owner reads, in a folder made on first use. */
import assert from "node:assert/strict";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import fsPromises from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";

import type { BatchItemReceipt } from "@abas/sdk";

import { FolderFlusher, removeAbandonedAsideFiles, writeReceiptFile } from "../receipts-folder.js";

describe("writeReceiptFile", () => {
  const work = mkdtempSync(join(tmpdir(), "abas-receipts-folder-"));
  after(() => rmSync(work, { recursive: true, force: true }));

  it("makes a missing folder (0700) and writes the file (0600) under the action's hash", async () => {
    // Given a folder two levels below one that exists, and a receipt (its shape is not checked here)
    const folder = join(work, "agent", "receipts");
    const actionHash = "ab".repeat(32);
    const content = {
      call: { kind: "test/tool-call", tool: "echo", arguments: {}, startedAt: "t0", endedAt: "t1" },
      receipt: { actionHash } as unknown as BatchItemReceipt,
    };

    // When it is written, then written again
    const { path, created } = await writeReceiptFile(folder, content);
    const again = await writeReceiptFile(folder, content);

    // Then the one file holds it, readable by its owner only, in a folder only its owner opens
    assert.equal(path, join(folder, `${actionHash}.json`));
    assert.deepEqual([created, again], [true, { path, created: false }]);
    assert.deepEqual(JSON.parse(readFileSync(path, "utf8")), content);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(statSync(folder).mode & 0o777, 0o700);
  });

  it("keeps a file that has the call when the receipt comes again without it", async () => {
    const folder = join(work, "again");
    const receipt = { actionHash: "cd".repeat(32) } as unknown as BatchItemReceipt;
    const call = {
      kind: "test/tool-call",
      tool: "echo",
      arguments: { a: 1 },
      startedAt: "t0",
      endedAt: "t1",
    };
    const { path } = await writeReceiptFile(folder, { call, receipt });
    assert.deepEqual(await writeReceiptFile(folder, { call: null, receipt }), { path, created: false });
    assert.deepEqual(JSON.parse(readFileSync(path, "utf8")).call, call);
    // And a receipt whose call is unknown from the start is still saved
    const lost = { actionHash: "ef".repeat(32) } as unknown as BatchItemReceipt;
    assert.equal(
      JSON.parse(readFileSync((await writeReceiptFile(folder, { call: null, receipt: lost })).path, "utf8"))
        .call,
      null,
    );
  });

  it("gives a second ledger item of the same action hash a file of its own, and each delivery again its own file", async () => {
    // Given two receipts of one action hash (two identical calls, each attested), saved at once
    const folder = join(work, "same-hash");
    const actionHash = "12".repeat(32);
    const batchAddress = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
    const receipt = (index: number) => ({ actionHash, batchAddress, index }) as unknown as BatchItemReceipt;
    const call = { kind: "test/tool-call", tool: "echo", arguments: {}, startedAt: "t0", endedAt: "t1" };
    const saved = await Promise.all([
      writeReceiptFile(folder, { call, receipt: receipt(0) }),
      writeReceiptFile(folder, { call, receipt: receipt(1) }),
    ]);
    assert.deepEqual(
      saved.map(({ created }) => created),
      [true, true],
    );
    const [first, second] = saved.map(({ path }) => path);
    // Then each has its file: the first under the hash, the second under the hash, batch and index
    assert.equal(first, join(folder, `${actionHash}.json`));
    assert.equal(second, join(folder, `${actionHash}.${batchAddress}.1.json`));
    // And each delivered again (with its call, or without it) goes to its own file, which keeps the call
    assert.deepEqual(await writeReceiptFile(folder, { call: null, receipt: receipt(1) }), {
      path: second,
      created: false,
    });
    assert.deepEqual(await writeReceiptFile(folder, { call, receipt: receipt(0) }), {
      path: first,
      created: false,
    });
    assert.deepEqual(readdirSync(folder).sort(), [
      `${actionHash}.${batchAddress}.1.json`,
      `${actionHash}.json`,
    ]);
    for (const [path, index] of [
      [first, 0],
      [second, 1],
    ] as const) {
      assert.deepEqual(JSON.parse(readFileSync(path, "utf8")), { call, receipt: receipt(index) });
    }
  });
  it("never names its new file over one another process saved meanwhile under the same action hash", async () => {
    // Given a receipt whose call is large, so that its file takes a while to write
    const folder = join(work, "taken-meanwhile");
    mkdirSync(folder);
    const actionHash = "34".repeat(32);
    const receipt = (batchAddress: string) =>
      ({ actionHash, batchAddress, index: 0 }) as unknown as BatchItemReceipt;
    const call = { kind: "test/tool-call", tool: "echo", arguments: {}, startedAt: "t0", endedAt: "t1" };
    const large = { ...call, arguments: { text: "x".repeat(32 << 20) } };
    const saving = writeReceiptFile(
      folder,
      { call: large, receipt: receipt("P".repeat(44)) },
      { flush: true },
    );
    // When another process saves another item of the action hash while that file is being written
    // (standing for it: this test, once the file's temporary name appears)
    while (!readdirSync(folder).some((name) => name.endsWith(".tmp"))) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const theirs = { call, receipt: receipt("Q".repeat(44)) };
    writeFileSync(join(folder, `${actionHash}.json`), JSON.stringify(theirs));
    // Then the receipt takes the name of a second item, and the other process's file stays
    const { path, created } = await saving;
    assert.deepEqual(
      { path, created },
      { path: join(folder, `${actionHash}.${"P".repeat(44)}.0.json`), created: true },
    );
    assert.deepEqual(JSON.parse(readFileSync(join(folder, `${actionHash}.json`), "utf8")), theirs);
    assert.deepEqual(readdirSync(folder).sort(), [
      `${actionHash}.${"P".repeat(44)}.0.json`,
      `${actionHash}.json`,
    ]);
  });

  it("leaves a file under the action hash's name that is not a receipt (a link to nothing, a loop of links, empty) and saves under the item's own name", async () => {
    const folder = join(work, "not-a-receipt");
    mkdirSync(folder);
    const call = { kind: "test/tool-call", tool: "echo", arguments: {}, startedAt: "t0", endedAt: "t1" };
    const batchAddress = "B".repeat(44);
    for (const [hex, put] of [
      ["56", (path: string) => symlinkSync(join(folder, "nowhere"), path)],
      ["57", (path: string) => symlinkSync(path, path)],
      ["58", (path: string) => writeFileSync(path, "")],
    ] as const) {
      const actionHash = hex.repeat(32);
      const path = join(folder, `${actionHash}.json`);
      put(path);
      const receipt = { actionHash, batchAddress, index: 0 } as unknown as BatchItemReceipt;
      const own = join(folder, `${actionHash}.${batchAddress}.0.json`);
      assert.deepEqual(await writeReceiptFile(folder, { call, receipt }), { path: own, created: true });
      assert.deepEqual(JSON.parse(readFileSync(own, "utf8")), { call, receipt });
      // And delivered again, it finds its file there
      assert.deepEqual(await writeReceiptFile(folder, { call: null, receipt }), {
        path: own,
        created: false,
      });
      assert.equal(lstatSync(path).isFile(), hex === "58");
    }
  });

  it("at a second item's own name, replaces what is not its receipt and refuses a folder", async () => {
    // Given the action hash's file holding item 0 of batch P, and at the names of items of batches
    // Q, R and S: a link to nothing, a folder, another item's receipt
    const folder = join(work, "own-name");
    mkdirSync(folder);
    const actionHash = "78".repeat(32);
    const receipt = (batch: string, index = 0) =>
      ({ actionHash, batchAddress: batch.repeat(44), index }) as unknown as BatchItemReceipt;
    const call = { kind: "test/tool-call", tool: "echo", arguments: {}, startedAt: "t0", endedAt: "t1" };
    const ownName = (batch: string) => join(folder, `${actionHash}.${batch.repeat(44)}.0.json`);
    writeFileSync(join(folder, `${actionHash}.json`), JSON.stringify({ call, receipt: receipt("P") }));
    symlinkSync(join(folder, "nowhere"), ownName("Q"));
    mkdirSync(ownName("R"));
    writeFileSync(ownName("S"), JSON.stringify({ call, receipt: receipt("S", 1) }));
    // Then the link and the other item's receipt are replaced, and the folder fails the write with
    // or without the call (the receipt is delivered again later), left as it was
    for (const batch of ["Q", "S"]) {
      assert.deepEqual(await writeReceiptFile(folder, { call, receipt: receipt(batch) }), {
        path: ownName(batch),
        created: true,
      });
      assert.deepEqual(JSON.parse(readFileSync(ownName(batch), "utf8")), { call, receipt: receipt(batch) });
    }
    for (const content of [
      { call, receipt: receipt("R") },
      { call: null, receipt: receipt("R") },
    ]) {
      await assert.rejects(writeReceiptFile(folder, content), { code: "EISDIR" });
    }
    assert.equal(statSync(ownName("R")).isDirectory(), true);
    assert.deepEqual(
      JSON.parse(readFileSync(join(folder, `${actionHash}.json`), "utf8")).receipt,
      receipt("P"),
    );
  });

  it("fails, and keeps the file there, when the file under the action's hash cannot be read", async () => {
    // Given the action hash's file holding another item's receipt
    const folder = join(work, "unread");
    mkdirSync(folder);
    const actionHash = "9a".repeat(32);
    const receipt = (batch: string) =>
      ({ actionHash, batchAddress: batch.repeat(44), index: 0 }) as unknown as BatchItemReceipt;
    const call = { kind: "test/tool-call", tool: "echo", arguments: {}, startedAt: "t0", endedAt: "t1" };
    const file = join(folder, `${actionHash}.json`);
    writeFileSync(file, JSON.stringify({ call, receipt: receipt("P") }));
    // When reading it fails once (a fault injected on purpose: no file descriptor left)
    const realReadFile = fsPromises.readFile;
    fsPromises.readFile = (() =>
      Promise.reject(
        Object.assign(new Error("EMFILE: too many open files"), { code: "EMFILE" }),
      )) as typeof fsPromises.readFile;
    syncBuiltinESMExports();
    try {
      await assert.rejects(writeReceiptFile(folder, { call, receipt: receipt("Q") }), { code: "EMFILE" });
    } finally {
      fsPromises.readFile = realReadFile;
      syncBuiltinESMExports();
    }
    // Then the other item's receipt is still there, and the receipt saved again goes beside it
    assert.deepEqual(JSON.parse(readFileSync(file, "utf8")).receipt, receipt("P"));
    assert.deepEqual(await writeReceiptFile(folder, { call, receipt: receipt("Q") }), {
      path: join(folder, `${actionHash}.${"Q".repeat(44)}.0.json`),
      created: true,
    });
  });
});

describe("FolderFlusher", () => {
  it("answers a request only with a flush that started after it, one flush for all who waited", async () => {
    // Given flushes the test finishes by hand (the rule under test is which flush answers whom)
    const started: Array<() => void> = [];
    const flusher = new FolderFlusher("/receipts", () => new Promise<void>((done) => started.push(done)));
    const answered: string[] = [];
    const ask = (name: string) => flusher.flush().then(() => answered.push(name));

    // When A asks with nothing running, and B and C ask while A's flush runs
    const a = ask("A");
    const b = ask("B");
    const c = ask("C");
    assert.equal(started.length, 1);
    started[0]!();
    await a;
    await new Promise((resolve) => setImmediate(resolve));

    // Then A's flush answers A only; B and C share the one that started after it
    assert.deepEqual(answered, ["A"]);
    assert.equal(started.length, 2);
    // And D, asking while that one runs, waits for a third
    const d = ask("D");
    started[1]!();
    await Promise.all([b, c]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(answered, ["A", "B", "C"]);
    assert.equal(started.length, 3);
    started[2]!();
    await d;
    assert.deepEqual(answered, ["A", "B", "C", "D"]);
  });

  it("passes a failed flush to everyone it answers, and flushes again for the next request", async () => {
    let calls = 0;
    const flusher = new FolderFlusher("/receipts", async () => {
      calls += 1;
      if (calls === 1) throw Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" });
    });
    await assert.rejects(flusher.flush(), /EIO/);
    await flusher.flush();
    assert.equal(calls, 2);
  });
});

describe("removeAbandonedAsideFiles", () => {
  it("removes the temporary files of receipts older than a minute, and nothing else", () => {
    // Given a receipts folder with a receipt, temporary files of receipts written 2 minutes ago
    // and just now, and a file of the user's with a temporary-looking name
    const folder = mkdtempSync(join(tmpdir(), "abas-receipts-aside-"));
    try {
      const hash = "ab".repeat(32);
      const files = {
        receipt: `${hash}.json`,
        abandoned: `${hash}.json.4242.1.tmp`,
        abandonedSecondItem: `${hash}.9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin.1.json.4242.3.tmp`,
        writing: `${hash}.json.4242.2.tmp`,
        other: "notes.json.1.1.tmp",
      };
      for (const name of Object.values(files)) writeFileSync(join(folder, name), "{}");
      const now = Date.now();
      const twoMinutesAgo = new Date(now - 120_000);
      for (const name of [files.abandoned, files.abandonedSecondItem, files.other])
        utimesSync(join(folder, name), twoMinutesAgo, twoMinutesAgo);
      // When the abandoned ones are removed
      const removed = removeAbandonedAsideFiles(folder, now);
      // Then only the receipts' temporary files of 2 minutes ago are gone
      assert.equal(removed, 2);
      assert.deepEqual(readdirSync(folder).sort(), [files.receipt, files.writing, files.other].sort());
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
