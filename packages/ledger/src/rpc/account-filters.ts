/**
 * The `filters` of getProgramAccounts and programSubscribe: `{ dataSize }` and
 * `{ memcmp: { offset, bytes, encoding? } }` (bytes in base58 by default, or base64), all of
 * which an account must match.
 */
import { fromBase58, fromBase64 } from "../encoding.js";
import { invalidParams } from "./json-rpc.js";
import { integerParam, type Config } from "./params.js";

const MAX_FILTERS = 4;
const MAX_MEMCMP_BYTES = 128;
export const MAX_ACCOUNT_SIZE = 10 * 1024 * 1024;

type AccountFilter = (data: Uint8Array) => boolean;

function readFilter(value: unknown, index: number): AccountFilter {
  const name = `filters[${index}]`;
  if (typeof value !== "object" || value === null) throw invalidParams(`${name} must be an object`);
  const filter = value as Config;
  if ("dataSize" in filter) {
    const size = integerParam(filter.dataSize, `${name}.dataSize`, 0, MAX_ACCOUNT_SIZE);
    return (data) => data.length === size;
  }
  if ("memcmp" in filter && typeof filter.memcmp === "object" && filter.memcmp !== null) {
    const memcmp = filter.memcmp as Config;
    const offset = integerParam(memcmp.offset, `${name}.memcmp.offset`, 0, MAX_ACCOUNT_SIZE);
    const encoding = memcmp.encoding ?? "base58";
    if (typeof memcmp.bytes !== "string") throw invalidParams(`${name}.memcmp.bytes must be a string`);
    if (encoding !== "base58" && encoding !== "base64") {
      throw invalidParams(`${name}.memcmp.encoding must be "base58" or "base64"`);
    }
    let bytes: Uint8Array;
    try {
      bytes = encoding === "base64" ? fromBase64(memcmp.bytes) : fromBase58(memcmp.bytes);
    } catch {
      throw invalidParams(`${name}.memcmp.bytes is not valid ${encoding}`);
    }
    if (bytes.length > MAX_MEMCMP_BYTES) {
      throw invalidParams(`${name}.memcmp.bytes is longer than ${MAX_MEMCMP_BYTES} bytes`);
    }
    return (data) =>
      data.length >= offset + bytes.length && bytes.every((byte, i) => data[offset + i] === byte);
  }
  throw invalidParams(`${name} must be { dataSize } or { memcmp: { offset, bytes, encoding? } }`);
}

export function readAccountFilters(value: unknown): AccountFilter {
  const list = value ?? [];
  if (!Array.isArray(list) || list.length > MAX_FILTERS) {
    throw invalidParams(`filters must be an array of at most ${MAX_FILTERS} filters`);
  }
  const filters = list.map(readFilter);
  return (data) => filters.every((matches) => matches(data));
}
