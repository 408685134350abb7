/**
 * Serialised responses by request URL, each labelled with the data version it was built under and
 * an entity tag (a hash of its bytes). An entry is used only while its label is the current version;
 * the least recently used entries go first once `maxEntries` are held.
 */
import { hash } from "node:crypto";

export interface CachedResponse {
  readonly version: string;
  /** UTF-8 bytes: sent as they are, not encoded again for every request. */
  readonly body: Buffer;
  /** A strong entity tag, quoted: `"<base64url SHA-1 of body>"`. */
  readonly etag: string;
}

export function entityTagOf(body: Buffer): string {
  return `"${hash("sha1", body, "base64url")}"`;
}

/** True when an If-None-Match header names `etag` (weak comparison, as RFC 9110 asks for GET). */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === etag);
}

export class ResponseCache {
  readonly #entries = new Map<string, CachedResponse>();

  constructor(readonly maxEntries: number) {}

  /** The entry for `key` built under `version`, if there is one. */
  get(key: string, version: string): CachedResponse | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    if (entry.version !== version) return undefined;
    // Re-inserting keeps the Map's order least recently used first.
    this.#entries.set(key, entry);
    return entry;
  }

  set(key: string, version: string, json: string): CachedResponse {
    const body = Buffer.from(json, "utf8");
    const entry = { version, body, etag: entityTagOf(body) };
    this.#entries.delete(key);
    if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, entry);
    return entry;
  }

  get size(): number {
    return this.#entries.size;
  }
}
