/**
 * Token amounts of Token-2022 mints whose UI amount moves with time, against the examples the
 * Token-2022 interface crate itself checks (`amount_to_ui_amount` of InterestBearingConfig and
 * ScaledUiAmountConfig): interest compounded continuously and rounded to the decimals, a
 * multiplier applied and truncated, huge values written out in full.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { uiTokenAmount } from "../rpc/token-amount.js";

const YEAR = 31_556_736n;
const ONE = 10n ** 18n;
const U64_MAX = 2n ** 64n - 1n;

const interest = (pre: number, current: number) => ({
  initializationTimestamp: 0n,
  preUpdateAverageRate: pre,
  lastUpdateTimestamp: YEAR,
  currentRate: current,
});
const scaled = (multiplier: number) => ({
  multiplier,
  newMultiplierEffectiveTimestamp: 1n,
  newMultiplier: 0,
});

test("an interest-bearing mint's amounts carry the interest, rounded to the mint's decimals", () => {
  const cases: [ReturnType<typeof interest>, bigint, number, bigint, string][] = [
    [interest(500, 500), ONE, 18, YEAR, "1.051271096376024117"],
    [interest(500, 500), ONE, 19, YEAR, "0.1051271096376024117"],
    [interest(500, 500), ONE, 28, YEAR, "0.0000000001051271096376024175"],
    [interest(500, 500), 10_000_000_000n, 10, YEAR, "1.0512710964"],
    [interest(-500, -500), ONE, 18, YEAR, "0.951229424500713905"],
    [interest(-500, 500), 1n, 0, 2n * YEAR, "1"],
    [interest(500, 500), U64_MAX, 0, 2n * YEAR, "20386805083448098816"],
    [interest(0, 0), 23n, 2, YEAR, "0.23"],
    [interest(0, 0), 110n, 2, YEAR, "1.1"],
    [interest(0, 0), 4200n, 2, YEAR, "42"],
    [interest(0, 0), 0n, 2, YEAR, "0"],
  ];
  for (const [config, amount, decimals, unixTimestamp, expected] of cases) {
    const ui = uiTokenAmount(amount, { decimals, interestBearing: config, unixTimestamp });
    assert.equal(ui.uiAmountString, expected, `${amount} at ${decimals} decimals`);
    assert.equal(ui.uiAmount, Number(expected));
    assert.equal(ui.amount, amount.toString());
  }
});

test("a scaled-UI-amount mint's amounts are the multiplier in effect times the amount, truncated", () => {
  const cases: [ReturnType<typeof scaled>, bigint, number, string, number | null][] = [
    [scaled(5), 1n, 0, "5", 5],
    [scaled(5), 1n, 1, "0.5", 0.5],
    [scaled(5), 1n, 10, "0.0000000005", 5e-10],
    [scaled(5), 10_000_000_000n, 10, "5", 5],
    [scaled(0.99), 101n, 2, "0.99", 0.99],
    [scaled(1), 110n, 2, "1.1", 1.1],
    [scaled(Number.MAX_VALUE), U64_MAX, 0, "inf", null],
  ];
  for (const [config, amount, decimals, expected, uiAmount] of cases) {
    const ui = uiTokenAmount(amount, { decimals, scaledUiAmount: config, unixTimestamp: 0n });
    assert.equal(ui.uiAmountString, expected, `${config.multiplier} x ${amount} at ${decimals} decimals`);
    assert.equal(ui.uiAmount, uiAmount);
  }

  // The new multiplier applies from its timestamp on
  const changing = { multiplier: 5, newMultiplierEffectiveTimestamp: 100n, newMultiplier: 10 };
  assert.equal(
    uiTokenAmount(1n, { decimals: 0, scaledUiAmount: changing, unixTimestamp: 99n }).uiAmountString,
    "5",
  );
  assert.equal(
    uiTokenAmount(1n, { decimals: 0, scaledUiAmount: changing, unixTimestamp: 100n }).uiAmountString,
    "10",
  );
});

test("a timespan beyond an i64 gives no UI amount, as the crate's checked arithmetic does", () => {
  const config = { ...interest(500, 500), lastUpdateTimestamp: 2n ** 63n - 1n };
  const ui = uiTokenAmount(5n, { decimals: 0, interestBearing: config, unixTimestamp: -(2n ** 63n) });
  assert.deepEqual(ui, { amount: "5", decimals: 0, uiAmount: null, uiAmountString: "" });
});
