import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ABAS_SDK__CANNOT_CANONICALIZE, isAbasError } from "@abas/errors";

import { canonicalize } from "../canonicalize.js";
import { AttestationClient } from "../client.js";

function assertCannotCanonicalize(value: unknown, path: string): void {
  assert.throws(
    () => canonicalize(value),
    (error: unknown) => {
      assert.ok(
        isAbasError(error, ABAS_SDK__CANNOT_CANONICALIZE),
        `expected CANNOT_CANONICALIZE, got ${String(error)}`,
      );
      assert.equal(error.context.path, path);
      return true;
    },
  );
}

/** The double whose IEEE 754 bits are `hex`, as RFC 8785 Appendix B writes them. */
function doubleFromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe("canonicalize (RFC 8785)", () => {
  it("serializes the example of RFC 8785 section 3.2.2", () => {
    // Given the RFC's input, parsed as JSON
    const input = JSON.parse(String.raw`{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }`);
    // When it is canonicalized
    // Then the output is the RFC's, byte for byte
    assert.equal(
      canonicalize(input),
      String.raw`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
    );
  });

  it("sorts properties by UTF-16 code units, as RFC 8785 section 3.2.3 shows", () => {
    // Given the RFC's sorting example
    const input = JSON.parse(String.raw`{
      "\u20ac": "Euro Sign",
      "\r": "Carriage Return",
      "\ufb33": "Hebrew Letter Dalet With Dagesh",
      "1": "One",
      "\ud83d\ude00": "Emoji: Grinning Face",
      "\u0080": "Control",
      "\u00f6": "Latin Small Letter O With Diaeresis"
    }`);
    // Then the members come in the RFC's order: "\r", "1", U+0080, U+00F6, U+20AC, then the
    // emoji, whose first surrogate (U+D83D) sorts before U+FB33 although its code point is higher
    assert.equal(
      canonicalize(input),
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it("writes every finite number of RFC 8785 Appendix B as the RFC does", () => {
    const vectors: [bits: string, text: string][] = [
      ["0000000000000000", "0"],
      ["8000000000000000", "0"],
      ["0000000000000001", "5e-324"],
      ["8000000000000001", "-5e-324"],
      ["7fefffffffffffff", "1.7976931348623157e+308"],
      ["ffefffffffffffff", "-1.7976931348623157e+308"],
      ["4340000000000000", "9007199254740992"],
      ["c340000000000000", "-9007199254740992"],
      ["4430000000000000", "295147905179352830000"],
      ["44b52d02c7e14af5", "9.999999999999997e+22"],
      ["44b52d02c7e14af6", "1e+23"],
      ["44b52d02c7e14af7", "1.0000000000000001e+23"],
      ["444b1ae4d6e2ef4e", "999999999999999700000"],
      ["444b1ae4d6e2ef4f", "999999999999999900000"],
      ["444b1ae4d6e2ef50", "1e+21"],
      ["3eb0c6f7a0b5ed8c", "9.999999999999997e-7"],
      ["3eb0c6f7a0b5ed8d", "0.000001"],
      ["41b3de4355555553", "333333333.3333332"],
      ["41b3de4355555554", "333333333.33333325"],
      ["41b3de4355555555", "333333333.3333333"],
      ["41b3de4355555556", "333333333.3333334"],
      ["41b3de4355555557", "333333333.33333343"],
      ["becbf647612f3696", "-0.0000033333333333333333"],
      ["43143ff3c1cb0959", "1424953923781206.2"],
    ];
    for (const [bits, text] of vectors) {
      assert.equal(canonicalize(doubleFromBits(bits)), text, `0x${bits}`);
    }
  });

  it("refuses the non-finite numbers of Appendix B (NaN and Infinity)", () => {
    assertCannotCanonicalize(doubleFromBits("7fffffffffffffff"), "$");
    assertCannotCanonicalize(doubleFromBits("7ff0000000000000"), "$");
    assertCannotCanonicalize({ a: [1, -Infinity] }, "$.a[1]");
  });

  it("gives the same text whatever order the keys were written in", () => {
    // Given one payload written twice with its keys in different orders
    const first = { tool: "search", args: { q: "flights", limit: 5 }, at: "2026-01-01" };
    const second = { at: "2026-01-01", args: { limit: 5, q: "flights" }, tool: "search" };
    // Then JSON.stringify differs but the canonical forms are equal
    assert.notEqual(JSON.stringify(first), JSON.stringify(second));
    assert.equal(canonicalize(first), canonicalize(second));
    assert.equal(canonicalize(first), '{"args":{"limit":5,"q":"flights"},"at":"2026-01-01","tool":"search"}');
  });

  it("writes values with toJSON, such as dates, as JSON.stringify does", () => {
    assert.equal(canonicalize({ at: new Date(Date.UTC(2026, 0, 2)) }), '{"at":"2026-01-02T00:00:00.000Z"}');
  });

  it("allows the same object twice when it is not its own ancestor", () => {
    const shared = { b: 1 };
    assert.equal(canonicalize({ x: shared, y: [shared] }), '{"x":{"b":1},"y":[{"b":1}]}');
  });

  it("refuses what JSON cannot carry, naming where it is", () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const cases: [value: unknown, path: string][] = [
      [undefined, "$"],
      [{ a: undefined }, "$.a"],
      [[1, undefined], "$[1]"],
      // A hole of a sparse array is not null, whatever JSON.stringify writes for it
      [new Array<number>(3).fill(1, 0, 1), "$[1]"],
      [{ run: () => 1 }, "$.run"],
      [{ id: Symbol("x") }, "$.id"],
      [{ big: 10n }, "$.big"],
      [cyclic, "$.self"],
      [{ nested: { "a key": new Map() } }, '$.nested["a key"]'],
      [{ text: "ok\ud800" }, "$.text"],
      [{ ["\udc00"]: 1 }, '$["\\udc00"]'],
    ];
    for (const [value, path] of cases) assertCannotCanonicalize(value, path);
  });

  it("refuses a value nested deeper than the stack allows, with a named error rather than a RangeError", () => {
    let deep: unknown = "bottom";
    for (let level = 0; level < 200_000; level++) deep = [deep];
    assertCannotCanonicalize(deep, "$");
  });

  it("is the client's static canonicalize", () => {
    assert.equal(AttestationClient.canonicalize({ b: 2, a: 1 }), '{"a":1,"b":2}');
  });
});
