import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ERROR_CODE_RANGES, type AbasErrorDomain } from "../codes.js";
import { ALL_CODES, domainOf } from "./all-codes.js";

describe("error codes", () => {
  it("exports codes of the program, runtime and SDK domains", () => {
    // Given every exported code constant
    // When we collect the domains they belong to
    const domains = new Set(ALL_CODES.map(([name]) => domainOf(name)));
    // Then the three domains defined so far are all present
    assert.ok(domains.has("ABAS_PROGRAM"));
    assert.ok(domains.has("ABAS_RUNTIME"));
    assert.ok(domains.has("ABAS_SDK"));
  });

  it("gives every code a distinct number", () => {
    // Given every exported code
    const seen = new Map<number, string>();
    for (const [name, code] of ALL_CODES) {
      // Then no two constants share a number
      assert.equal(seen.get(code), undefined, `${name} reuses ${code} of ${seen.get(code)}`);
      seen.set(code, name);
    }
  });

  it("names every code <DOMAIN>__<DESCRIPTION> in upper snake case", () => {
    for (const [name] of ALL_CODES) {
      assert.match(name, /^ABAS_[A-Z]+__[A-Z0-9]+(_[A-Z0-9]+)*$/);
    }
  });

  it("keeps every code inside the range of its domain", () => {
    for (const [name, code] of ALL_CODES) {
      // Given the domain named by the constant
      const domain = domainOf(name);
      assert.ok(domain in ERROR_CODE_RANGES, `${name}: unknown domain ${domain}`);
      const range = ERROR_CODE_RANGES[domain as AbasErrorDomain];
      // Then its number lies within that domain's reserved range
      assert.ok(Number.isInteger(code), `${name} is not an integer`);
      assert.ok(
        code >= range.min && code <= range.max,
        `${name} = ${code} is outside ${range.min}-${range.max}`,
      );
    }
  });

  it("reserves ranges that do not overlap", () => {
    // Given the reserved ranges sorted by start
    const ranges = Object.values(ERROR_CODE_RANGES).sort((a, b) => a.min - b.min);
    // Then each one ends before the next one starts
    for (let i = 1; i < ranges.length; i++) {
      assert.ok(ranges[i - 1]!.max < ranges[i]!.min);
    }
  });

  it("reserves the documented ranges", () => {
    assert.deepEqual(ERROR_CODE_RANGES, {
      ABAS_PROGRAM: { min: 1000, max: 1999 },
      ABAS_RUNTIME: { min: 2000, max: 2999 },
      ABAS_SDK: { min: 3000, max: 3999 },
      ABAS_API: { min: 4000, max: 4999 },
      ABAS_LEDGER: { min: 5000, max: 5999 },
    });
  });
});
