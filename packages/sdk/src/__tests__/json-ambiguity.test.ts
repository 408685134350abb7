import assert from "node:assert/strict";
import { test } from "node:test";

import { jsonAmbiguity } from "../json-ambiguity.js";

test("JSON whose parse keeps all it says has no ambiguity", () => {
  for (const text of [
    '{"tool":"bank.transfer","arguments":{"to":"mallory","amount":100}}',
    '[{"a":1},{"a":2}]', // the same key in two objects
    '{"a":{"b":1},"b":{"a":2}}',
    '{"text":"a \\"quoted\\" \\\\ key: \\"to\\""}',
    "0.1",
    "1e21",
    "1E2",
    "-0",
    "0.000",
    "1.5e-7",
    "123456789012345680000", // what a double of 1.2345678901234568e20 holds, written out
    '"-1234567890123456789"', // digits in a string are text
    ' { "a" : [ 1 , 2 , { "a" : 3 } ] } ',
  ]) {
    JSON.parse(text);
    assert.equal(jsonAmbiguity(text), undefined, text);
  }
});

test("a repeated key is named, at any depth, escapes read", () => {
  assert.equal(jsonAmbiguity('{"to":"alice","amount":1,"to":"mallory"}'), 'an object repeats the key "to"');
  assert.equal(jsonAmbiguity('[{"a":{"b":1,"b":2}}]'), 'an object repeats the key "b"');
  assert.equal(jsonAmbiguity('{"\\u0074o":1,"to":2}'), 'an object repeats the key "to"');
  // Strings that end in an escaped backslash, or hold an escaped quote, end where JSON says
  assert.equal(jsonAmbiguity('{"a\\\\":1,"b":"\\"","a\\\\":2}'), 'an object repeats the key "a\\\\"');
  assert.equal(jsonAmbiguity('{"a\\"":"\\\\","a\\"b":1}'), undefined);
});

test("a number with more digits than a double holds is named with what the parse reads", () => {
  assert.equal(
    jsonAmbiguity('{"amount":10000000000000001}'),
    "the number 10000000000000001 has more digits than JSON.parse keeps (it reads 10000000000000000)",
  );
  assert.equal(
    jsonAmbiguity("[0.10000000000000001]"),
    "the number 0.10000000000000001 has more digits than JSON.parse keeps (it reads 0.1)",
  );
  assert.equal(
    jsonAmbiguity("1e-400"),
    "the number 1e-400 has more digits than JSON.parse keeps (it reads 0)",
  );
  assert.equal(jsonAmbiguity("1e400"), "the number 1e400 is beyond what JSON.parse keeps");
  // A payload's longest number: 200,000 digits, most of them zeros, named by its ends and length
  const long = `1.${"0".repeat(199_997)}1`;
  assert.equal(
    jsonAmbiguity(`[${long}]`),
    `the number 1.00000000000000000000000000000000000000…0000000000000001 (200000 characters) has more digits than JSON.parse keeps (it reads 1)`,
  );
  assert.equal(jsonAmbiguity(`[1${"0".repeat(199_997)}e-199997]`), undefined);
  // An exponent written with a million leading zeros is the small number it is
  assert.equal(jsonAmbiguity(`[1e-${"0".repeat(1_000_000)}1]`), undefined);
});

test("a number whose exponent has millions of digits is no double's, and is named by its ends", () => {
  const exponent = "1".repeat(12_000_000);
  assert.equal(
    jsonAmbiguity(`[1e-${exponent}]`),
    "the number 1e-1111111111111111111111111111111111111…1111111111111111 (12000003 characters) has more digits than JSON.parse keeps (it reads 0)",
  );
  assert.equal(jsonAmbiguity(`[0e-${exponent}]`), undefined);
});
