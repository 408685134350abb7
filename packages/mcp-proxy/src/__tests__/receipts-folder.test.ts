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
});
