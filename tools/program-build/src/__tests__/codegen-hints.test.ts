import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { codegenFailureHint } from "../build-program.js";

describe("codegen failure hints", () => {
  test("a call with a sixth argument is explained as BPF's five-register limit", () => {
    // Given llc's error for a non-inlined call with six arguments
    const stderr =
      "error: <unknown>:0:0: in function f void (ptr, i64, i64, ptr, i64, ptr): stack arguments are not supported";
    // Then the hint says what to change in the program
    assert.match(codegenFailureHint(stderr) ?? "", /more than 5 arguments.*#\[inline\(always\)\]/);
  });

  test("a missing runtime function is named", () => {
    const stderr = "error: A call to built-in function '__multi3' is not supported.";
    assert.match(codegenFailureHint(stderr) ?? "", /__multi3.*u128/);
  });

  test("other failures get no hint", () => {
    assert.equal(codegenFailureHint("error: expected type"), undefined);
  });
});
