import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ABAS_API__INVALID_PARAMETER, ABAS_API__INVALID_TIME_RANGE, isAbasError } from "@abas/errors";

import { assertTimeRange, parseTimeParameter } from "../time-parameter.js";

describe("since and until", () => {
  it("reads unix seconds, dates (UTC midnight) and date-times with a zone", () => {
    assert.equal(parseTimeParameter("since", "1763742000"), 1763742000);
    assert.equal(parseTimeParameter("since", "2026-11-21"), Date.UTC(2026, 10, 21) / 1000);
    assert.equal(parseTimeParameter("since", "2026-11-21T17:00:00Z"), Date.UTC(2026, 10, 21, 17) / 1000);
    assert.equal(parseTimeParameter("since", "2026-11-21T19:00:00+02:00"), Date.UTC(2026, 10, 21, 17) / 1000);
    assert.equal(parseTimeParameter("since", "2026-11-21T17:00:00.999Z"), Date.UTC(2026, 10, 21, 17) / 1000);
  });

  it("refuses dates that do not exist, naming the parameter", () => {
    for (const value of ["2026-02-31", "2026-02-30T00:00:00Z", "2026-13-01", "2026-11-21T24:30:00Z"]) {
      assert.throws(
        () => parseTimeParameter("until", value),
        (error) => isAbasError(error, ABAS_API__INVALID_PARAMETER) && error.context.parameter === "until",
        value,
      );
    }
  });

  it("requires since to be strictly earlier than until", () => {
    assertTimeRange(1, 2);
    assertTimeRange(undefined, 2);
    assertTimeRange(1, undefined);
    for (const [since, until] of [
      [2, 1],
      [2, 2],
    ] as const) {
      assert.throws(
        () => assertTimeRange(since, until),
        (error) => isAbasError(error, ABAS_API__INVALID_TIME_RANGE),
      );
    }
  });
});
