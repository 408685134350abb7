/**
 * Token amounts as validators show them (UiTokenAmount): the raw amount as a decimal string,
 * the mint's decimals, `uiAmount` as a float (null when 10^decimals overflows a u64, as on a
 * validator) and `uiAmountString`, the exact decimal number without trailing zeros. A Token-2022
 * mint with the interest-bearing or scaled-UI-amount extension shows its amounts as a validator's
 * account decoder computes them at the Clock's unix time: with the interest accrued (continuously
 * compounded, rounded to the mint's decimals) or times the multiplier in effect (truncated to a
 * whole raw amount first), `uiAmount` being `uiAmountString` read as a float.
 */
import type { Address } from "@solana/kit";

import {
  mintDecimalsAndData,
  readInterestBearingConfig,
  readScaledUiAmountConfig,
  type InterestBearingConfig,
  type ScaledUiAmountConfig,
} from "../token/token-state.js";

export interface UiTokenAmount {
  readonly amount: string;
  readonly decimals: number;
  readonly uiAmount: number | null;
  readonly uiAmountString: string;
}

/** What a mint's amounts read with: its decimals, and the extensions that change them with the time. */
export interface MintAmountScale {
  readonly decimals: number;
  readonly interestBearing?: InterestBearingConfig;
  readonly scaledUiAmount?: ScaledUiAmountConfig;
  /** The Clock's unix time the extensions are applied at. */
  readonly unixTimestamp?: bigint;
}

/** 10^19 is the largest power of ten a u64 holds. */
const MAX_DIVISIBLE_DECIMALS = 19;
const SECONDS_PER_YEAR = 60 * 60 * 24 * 365.24;
const ONE_IN_BASIS_POINTS = 10_000;
const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;

function exactDecimalString(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const digits = amount.toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return fraction === "" ? whole : `${whole}.${fraction}`;
}

/**
 * `value` with exactly `decimals` digits after the point, from its exact binary value, ties to
 * even, never in exponent form, "inf" and "NaN" spelled so: what Rust's `format!("{:.*}")` writes.
 */
function fixedDecimalString(value: number, decimals: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  const sign = value < 0 || Object.is(value, -0) ? "-" : "";
  // |value| = mantissa * 2^exponent exactly; times 10^decimals, rounded to an integer: the digits.
  const bits = new DataView(new ArrayBuffer(8));
  bits.setFloat64(0, Math.abs(value));
  const raw = bits.getBigUint64(0);
  const biased = Number((raw >> 52n) & 0x7ffn);
  const mantissa = (raw & ((1n << 52n) - 1n)) | (biased === 0 ? 0n : 1n << 52n);
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  const numerator = mantissa * 10n ** BigInt(decimals);
  const scaled = exponent >= 0 ? numerator << BigInt(exponent) : halvedToEven(numerator, BigInt(-exponent));
  const digits = scaled.toString().padStart(decimals + 1, "0");
  const point = digits.length - decimals;
  return `${sign}${digits.slice(0, point)}${decimals === 0 ? "" : `.${digits.slice(point)}`}`;
}

/** `value` / 2^shift, rounded to the nearest integer, ties to even. */
function halvedToEven(value: bigint, shift: bigint): bigint {
  const quotient = value >> shift;
  const remainder = value - (quotient << shift);
  const half = 1n << (shift - 1n);
  return remainder > half || (remainder === half && (quotient & 1n) === 1n) ? quotient + 1n : quotient;
}

/** Rust's `trim_ui_amount_string`: no trailing zeros after the point, nor a bare point. */
function trimmed(ui: string, decimals: number): string {
  return decimals === 0 ? ui : ui.replace(/0+$/, "").replace(/\.$/, "");
}

/**
 * 10^decimals by squaring, as Rust's `powi` computes it (compiler-rt): exact up to 10^22, as any
 * way of computing it is; beyond (a mint of more than 22 decimals), possibly off in the last bit.
 */
function powi10(decimals: number): number {
  let base = 10;
  let result = 1;
  for (let exponent = decimals; ;) {
    if (exponent % 2 === 1) result *= base;
    exponent = Math.floor(exponent / 2);
    if (exponent === 0) return result;
    base *= base;
  }
}

/** exp(rate * timespan / year) of one stretch of an interest-bearing mint; undefined on overflow. */
function growth(rate: number, from: bigint, to: bigint): number | undefined {
  const timespan = to - from;
  if (timespan < I64_MIN || timespan > I64_MAX) return undefined;
  return Math.exp(Number(BigInt(rate) * timespan) / SECONDS_PER_YEAR / ONE_IN_BASIS_POINTS);
}

function interestUiAmount(
  amount: bigint,
  decimals: number,
  config: InterestBearingConfig,
  now: bigint,
): string | undefined {
  const before = growth(
    config.preUpdateAverageRate,
    config.initializationTimestamp,
    config.lastUpdateTimestamp,
  );
  const since = growth(config.currentRate, config.lastUpdateTimestamp, now);
  if (before === undefined || since === undefined) return undefined;
  return trimmed(
    fixedDecimalString(Number(amount) * ((before * since) / powi10(decimals)), decimals),
    decimals,
  );
}

function scaledUiAmount(amount: bigint, decimals: number, config: ScaledUiAmountConfig, now: bigint): string {
  const multiplier = now >= config.newMultiplierEffectiveTimestamp ? config.newMultiplier : config.multiplier;
  const truncated = Math.trunc(Number(amount) * multiplier) / powi10(decimals);
  return trimmed(fixedDecimalString(truncated, decimals), decimals);
}

/** Rust's `f64::from_str` of a UI amount, as serde_json writes it (null when not finite). */
function uiAmountOf(ui: string | undefined): number | null {
  if (ui === undefined) return null;
  const value = Number(ui);
  return Number.isFinite(value) ? value : null;
}

export function uiTokenAmount(amount: bigint, scale: MintAmountScale): UiTokenAmount {
  const { decimals, interestBearing, scaledUiAmount: scaled, unixTimestamp = 0n } = scale;
  if (interestBearing !== undefined || scaled !== undefined) {
    const ui =
      interestBearing !== undefined
        ? interestUiAmount(amount, decimals, interestBearing, unixTimestamp)
        : scaledUiAmount(amount, decimals, scaled!, unixTimestamp);
    return { amount: amount.toString(), decimals, uiAmount: uiAmountOf(ui), uiAmountString: ui ?? "" };
  }
  return {
    amount: amount.toString(),
    decimals,
    uiAmount: decimals > MAX_DIVISIBLE_DECIMALS ? null : Number(amount) / 10 ** decimals,
    uiAmountString: exactDecimalString(amount, decimals),
  };
}

/**
 * How the amounts of `mint` read at `unixTimestamp`, through `mintData` (the data of the account at
 * an address, if any); wrapped SOL's are known without its account, as on a validator.
 */
export function mintAmountScaleOf(
  mint: Address,
  mintData: (address: Address) => Uint8Array | undefined,
  unixTimestamp: bigint,
): MintAmountScale | undefined {
  const mintRead = mintDecimalsAndData(mint, mintData);
  // No mint, or wrapped SOL: its decimals alone.
  if (mintRead?.data === undefined) return mintRead;
  const { decimals, data } = mintRead;
  return {
    decimals,
    interestBearing: readInterestBearingConfig(data),
    scaledUiAmount: readScaledUiAmountConfig(data),
    unixTimestamp,
  };
}
