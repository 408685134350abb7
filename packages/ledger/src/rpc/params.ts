/**
 * Reading and checking method parameters. Every problem becomes -32602 "Invalid params: ..."
 * naming the parameter and what was expected.
 */
import type { Address } from "@solana/kit";

import { fromBase58 } from "../encoding.js";
import { invalidParams, RpcError, RpcErrorCode } from "./json-rpc.js";

export type Config = Readonly<Record<string, unknown>>;

/** Positional parameters; a method without parameters may receive none at all. */
export function positional(params: unknown, method: string, max: number): readonly unknown[] {
  if (params === undefined || params === null) return [];
  if (!Array.isArray(params)) throw invalidParams(`${method} takes its parameters as an array`);
  if (params.length > max) {
    throw invalidParams(
      `${method} takes at most ${max} parameter${max === 1 ? "" : "s"}, got ${params.length}`,
    );
  }
  return params;
}

export function requiredParam(params: readonly unknown[], index: number, name: string): unknown {
  const value = params[index];
  if (value === undefined || value === null) throw invalidParams(`missing parameter ${index + 1} (${name})`);
  return value;
}

export function stringParam(value: unknown, name: string): string {
  if (typeof value !== "string") throw invalidParams(`${name} must be a string`);
  return value;
}

/** The most base58 characters `length` bytes can take: more is refused before decoding, which grows with the square of the input. */
const maxBase58Length = (length: number): number => Math.ceil((length * Math.log(256)) / Math.log(58));

function base58OfLength(value: unknown, name: string, length: number, what: string): string {
  const text = stringParam(value, name);
  if (text.length > maxBase58Length(length)) {
    throw invalidParams(
      `${name} is not ${what}: ${text.length} characters, at most ${maxBase58Length(length)}`,
    );
  }
  let bytes: Uint8Array;
  try {
    bytes = fromBase58(text);
  } catch {
    throw invalidParams(`${name} is not base58: "${text}"`);
  }
  if (bytes.length !== length) throw invalidParams(`${name} is not ${what}: "${text}"`);
  return text;
}

export function addressParam(value: unknown, name: string): Address {
  return base58OfLength(value, name, 32, "a 32-byte base58 address") as Address;
}

export function signatureParam(value: unknown, name: string): string {
  return base58OfLength(value, name, 64, "a 64-byte base58 signature");
}

export function blockhashParam(value: unknown, name: string): string {
  return base58OfLength(value, name, 32, "a 32-byte base58 blockhash");
}

/** The configuration object at `index`; absent or null means defaults. */
export function configParam(params: readonly unknown[], index: number, method: string): Config {
  const value = params[index];
  if (value === undefined || value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw invalidParams(`the configuration of ${method} (parameter ${index + 1}) must be an object`);
  }
  return value as Config;
}

export function optionalBoolean(config: Config, key: string): boolean | undefined {
  const value = config[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw invalidParams(`${key} must be true or false`);
  return value;
}

export function optionalInteger(config: Config, key: string, min: number, max: number): number | undefined {
  const value = config[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalidParams(`${key} must be an integer from ${min} to ${max}`);
  }
  return value;
}

export function integerParam(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max) {
    throw invalidParams(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

/**
 * A u64 sent as a JSON number. One beyond 2^53 - 1 is refused: JSON.parse has already rounded it,
 * and acting on the rounded value would do something other than what was asked.
 */
export function u64Param(value: unknown, name: string): bigint {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw invalidParams(`${name} must be a non-negative integer`);
  }
  if (!Number.isSafeInteger(value)) {
    throw invalidParams(
      `${name} must be at most ${Number.MAX_SAFE_INTEGER}: this ledger reads JSON numbers as doubles, which do not keep a larger one exactly`,
    );
  }
  return BigInt(value);
}

export function optionalEnum<T extends string>(
  config: Config,
  key: string,
  allowed: readonly T[],
): T | undefined {
  const value = config[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    throw invalidParams(`${key} must be one of ${allowed.map((a) => `"${a}"`).join(", ")}`);
  }
  return value as T;
}

/** Every commitment name a client may send, current and deprecated. */
export const COMMITMENTS = [
  "processed",
  "confirmed",
  "finalized",
  "recent",
  "single",
  "singleGossip",
  "root",
  "max",
];

/**
 * Every commitment level sees the same state here (each slot is final when it starts), but an
 * unknown level is still an error, as on a validator. Also enforces `minContextSlot`.
 */
export function checkCommonConfig(config: Config, currentSlot: bigint): void {
  optionalEnum(config, "commitment", COMMITMENTS);
  const minContextSlot = config.minContextSlot;
  if (minContextSlot === undefined || minContextSlot === null) return;
  if (typeof minContextSlot !== "number" || !Number.isInteger(minContextSlot) || minContextSlot < 0) {
    throw invalidParams("minContextSlot must be a non-negative integer");
  }
  if (BigInt(minContextSlot) > currentSlot) {
    throw new RpcError(
      RpcErrorCode.MIN_CONTEXT_SLOT_NOT_REACHED,
      "Minimum context slot has not been reached",
      {
        contextSlot: currentSlot,
      },
    );
  }
}

/** A config that may also be given as a bare commitment string (older clients do). */
export function configOrCommitment(params: readonly unknown[], index: number, method: string): Config {
  const value = params[index];
  return typeof value === "string" ? { commitment: value } : configParam(params, index, method);
}
