import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";

import { appendWhole } from "../attestor/append-whole.js";
import { fullDisk } from "./support/full-disk.js";

describe("appendWhole", () => {
  const dir = mkdtempSync(join(tmpdir(), "abas-append-whole-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("takes back a line a full disk cut short, so the next line does not glue onto it", () => {
    const file = join(dir, "lines.jsonl");
    const fd = openSync(file, "a+");
    const disk = fullDisk();
    try {
      appendWhole(fd, '{"line":1}\n');
      // Fault injected on purpose: the disk takes 5 bytes of the second line, then is full
      disk.fillAfter(5);
      assert.throws(() => appendWhole(fd, '{"line":2}\n'), { code: "ENOSPC" });
      assert.equal(readFileSync(file, "utf8"), '{"line":1}\n');
      appendWhole(fd, '{"line":3}\n');
      assert.equal(readFileSync(file, "utf8"), '{"line":1}\n{"line":3}\n');
    } finally {
      disk.restore();
      closeSync(fd);
    }
  });
});
