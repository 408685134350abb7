/**
 * RFC 8785 JSON Canonicalization Scheme (JCS): one JSON text per value, so that the same payload
 * object always hashes the same whatever order its keys were written in.
 *
 * - object members are sorted by their names compared as UTF-16 code units (the default order of
 *   `Array.prototype.sort` on strings, independent of locale);
 * - numbers are written as ECMAScript's `Number.prototype.toString` writes them (so `4.50` is `4.5`,
 *   `1E30` is `1e+30`, `-0` is `0`);
 * - strings are escaped as `JSON.stringify` escapes them;
 * - no whitespace.
 *
 * Input must be I-JSON (RFC 7493): values that JSON cannot carry are refused with a named error
 * instead of being dropped or changed the way `JSON.stringify` silently does.
 */
import { ABAS_SDK__CANNOT_CANONICALIZE, AbasError } from "@abas/errors";

import { findLoneSurrogate } from "./well-formed-text.js";

function cannotCanonicalize(path: string, reason: string): AbasError {
  return new AbasError(ABAS_SDK__CANNOT_CANONICALIZE, { path, reason });
}

const isIdentifier = (name: string): boolean => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name);

function memberPath(parent: string, name: string): string {
  return isIdentifier(name) ? `${parent}.${name}` : `${parent}[${JSON.stringify(name)}]`;
}

function serializeString(text: string, path: string): string {
  const position = findLoneSurrogate(text);
  if (position !== -1) {
    throw cannotCanonicalize(path, `the string has a lone UTF-16 surrogate at index ${position}`);
  }
  return JSON.stringify(text);
}

function serializeNumber(value: number, path: string): string {
  if (!Number.isFinite(value)) throw cannotCanonicalize(path, `${value} is not a JSON number`);
  // String(-0) is "0", as RFC 8785 requires.
  return String(value);
}

function isPlainObject(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

type ToJsonable = { toJSON: (key: string) => unknown };
const hasToJson = (value: object): value is ToJsonable =>
  typeof (value as Partial<ToJsonable>).toJSON === "function";

function describeType(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "object" && value !== null) {
    return `a ${(value.constructor as { name?: string } | undefined)?.name ?? "non-plain"} object`;
  }
  return `a ${typeof value}`;
}

class Canonicalizer {
  /** The objects and arrays being serialized, to refuse cycles instead of recursing forever. */
  readonly #ancestors = new Set<object>();

  serialize(value: unknown, path: string, key: string): string {
    if (value === null) return "null";
    switch (typeof value) {
      case "boolean":
        return value ? "true" : "false";
      case "number":
        return serializeNumber(value, path);
      case "string":
        return serializeString(value, path);
      case "object":
        return this.#serializeObject(value, path, key);
      default:
        throw cannotCanonicalize(path, `${describeType(value)} has no JSON form`);
    }
  }

  #serializeObject(value: object, path: string, key: string): string {
    // Like JSON.stringify: a Date (or any value with toJSON) is written as what toJSON returns.
    if (hasToJson(value)) return this.serialize(value.toJSON(key), path, key);
    if (this.#ancestors.has(value)) throw cannotCanonicalize(path, "the value contains itself (a cycle)");
    this.#ancestors.add(value);
    try {
      if (Array.isArray(value)) return this.#serializeArray(value, path);
      if (!isPlainObject(value)) {
        throw cannotCanonicalize(path, `${describeType(value)} has no JSON form; convert it first`);
      }
      return this.#serializeMembers(value as Record<string, unknown>, path);
    } finally {
      this.#ancestors.delete(value);
    }
  }

  #serializeArray(items: readonly unknown[], path: string): string {
    const parts: string[] = [];
    // An index loop, not map: map skips the holes of a sparse array, which must be refused.
    for (let i = 0; i < items.length; i++) {
      const itemPath = `${path}[${i}]`;
      if (items[i] === undefined) throw cannotCanonicalize(itemPath, "undefined has no JSON form");
      parts.push(this.serialize(items[i], itemPath, String(i)));
    }
    return `[${parts.join(",")}]`;
  }

  #serializeMembers(members: Record<string, unknown>, path: string): string {
    const names = Object.keys(members).sort();
    const parts: string[] = [];
    for (const name of names) {
      const valuePath = memberPath(path, name);
      if (members[name] === undefined) throw cannotCanonicalize(valuePath, "undefined has no JSON form");
      parts.push(`${serializeString(name, valuePath)}:${this.serialize(members[name], valuePath, name)}`);
    }
    return `{${parts.join(",")}}`;
  }
}

/**
 * The RFC 8785 canonical JSON text of `value`. Throws `ABAS_SDK__CANNOT_CANONICALIZE`, naming the
 * offending path (such as `$.arguments.retries`), for NaN and Infinity, undefined, functions,
 * symbols, bigints, cycles, lone surrogates and objects other than plain objects and arrays; and,
 * at `$`, for a value nested deeper than the stack allows or whose text is longer than a string can be.
 */
export function canonicalize(value: unknown): string {
  try {
    return new Canonicalizer().serialize(value, "$", "");
  } catch (error) {
    if (error instanceof RangeError)
      throw cannotCanonicalize("$", `${error.message} (nested too deep, or too long)`);
    throw error;
  }
}
