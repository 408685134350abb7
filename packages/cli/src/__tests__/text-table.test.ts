import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { table } from "../text-table.js";

describe("table", () => {
  it("pads columns to their widest cell, two spaces apart", () => {
    assert.equal(
      table([
        ["TOOL", "N"],
        ["echo", "12"],
      ]),
      "TOOL  N\necho  12",
    );
  });

  it("writes controls and invisible formatting characters as escapes, so a cell cannot pass for another", () => {
    const cells = [
      ["line\nbreak", "line\\nbreak"],
      ["\u001b[31mred", "\\u001b[31mred"],
      ["del\u007f", "del\\u007f"],
      ["c1\u009b2J", "c1\\u009b2J"],
      // "transfer" shown reversed after a right-to-left override: a name that reads as another.
      ["\u202erefsnart", "\\u202erefsnart"],
      ["isolate\u2066x\u2069", "isolate\\u2066x\\u2069"],
      ["zero\u200bwidth\ufeff", "zero\\u200bwidth\\ufeff"],
      ["arabic mark\u061c", "arabic mark\\u061c"],
      ["separators\u2028\u2029", "separators\\u2028\\u2029"],
      ["café ☕ 読む", "café ☕ 読む"],
    ];
    for (const [cell, shown] of cells)
      assert.equal(table([["NAME"], [cell!]]), `NAME\n${shown}`, JSON.stringify(cell));
  });
});
