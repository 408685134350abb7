/** Writing a receipts folder: files only the owner reads, in a folder made on first use. */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";

import type { BatchItemReceipt } from "@abas/sdk";

import { writeReceiptFile } from "../receipts-folder.js";

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
    const path = await writeReceiptFile(folder, content);
    await writeReceiptFile(folder, content);

    // Then the one file holds it, readable by its owner only, in a folder only its owner opens
    assert.equal(path, join(folder, `${actionHash}.json`));
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
    const path = await writeReceiptFile(folder, { call, receipt });
    await writeReceiptFile(folder, { call: null, receipt });
    assert.deepEqual(JSON.parse(readFileSync(path, "utf8")).call, call);
    // And a receipt whose call is unknown from the start is still saved
    const lost = { actionHash: "ef".repeat(32) } as unknown as BatchItemReceipt;
    assert.equal(
      JSON.parse(readFileSync(await writeReceiptFile(folder, { call: null, receipt: lost }), "utf8")).call,
      null,
    );
  });
});
