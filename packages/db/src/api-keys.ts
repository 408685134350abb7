/**
 * API keys: `abas_<base58 of 32 random bytes>`, shown once at creation. Only the SHA-256 of a key
 * and its first characters (to tell keys apart in listings) are stored.
 */
import { hash, randomBytes, timingSafeEqual } from "node:crypto";

import {
  ABAS_API__API_KEY_ALREADY_REVOKED,
  ABAS_API__API_KEY_MALFORMED,
  ABAS_API__API_KEY_NOT_FOUND,
  ABAS_API__API_KEY_REVOKED,
  ABAS_API__API_KEY_UNKNOWN,
  ABAS_API__INVALID_API_KEY_NAME,
  ABAS_API__TOO_MANY_API_KEYS,
  AbasError,
} from "@abas/errors";
import { encodeBase58 } from "@abas/program-client";
import type { Kysely } from "kysely";

import type { ApiKeyRow, Database } from "./schema.js";

export const API_KEY_PREFIX = "abas_";
const API_KEY_SECRET_BYTES = 32;
/** `abas_` and 7 characters of the secret: enough to tell keys apart, far too little to guess one. */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 7;
/** The prefix and base58 (no 0, O, I or l) of 32 bytes. */
const API_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[1-9A-HJ-NP-Za-km-z]{32,44}$`);
const MAX_NAME_LENGTH = 100;
const MAX_OWNER_LENGTH = 100;
/** How often at most `last_used_at` is written per key. */
export const DEFAULT_LAST_USED_INTERVAL_MS = 60_000;

export interface ApiKeyRecord {
  readonly id: string;
  readonly name: string;
  /** The key's first characters, e.g. `abas_4Nd8Kq2`. */
  readonly prefix: string;
  readonly owner: string;
  /** Unix milliseconds. */
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  readonly revokedAt: number | null;
}

export interface CreatedApiKey {
  /** The whole key: this is the only time it exists outside its holder's hands. */
  readonly key: string;
  readonly record: ApiKeyRecord;
}

export interface CreateApiKeyOptions {
  readonly name: string;
  /** An operator's wallet address, or "cli" (the default). */
  readonly owner?: string;
  readonly now?: number;
}

function toApiKeyRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    owner: row.owner,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}

export function hashApiKey(key: string): string {
  return hash("sha256", key, "hex");
}

/** True when `key` has the shape of a key this module issues (it may still be unknown). */
export function isWellFormedApiKey(key: string): boolean {
  return API_KEY_PATTERN.test(key);
}

function checkName(name: unknown): string {
  if (typeof name !== "string")
    throw new AbasError(ABAS_API__INVALID_API_KEY_NAME, { reason: "expected text" });
  const trimmed = name.trim();
  if (trimmed.length === 0) throw new AbasError(ABAS_API__INVALID_API_KEY_NAME, { reason: "it is empty" });
  if (trimmed.length > MAX_NAME_LENGTH) {
    throw new AbasError(ABAS_API__INVALID_API_KEY_NAME, {
      reason: `longer than ${MAX_NAME_LENGTH} characters`,
    });
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) {
    throw new AbasError(ABAS_API__INVALID_API_KEY_NAME, { reason: "it contains control characters" });
  }
  return trimmed;
}

function checkOwner(owner: string): string {
  const trimmed = owner.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_OWNER_LENGTH) {
    throw new AbasError(ABAS_API__INVALID_API_KEY_NAME, {
      reason: `the owner must be 1 to ${MAX_OWNER_LENGTH} characters`,
    });
  }
  return trimmed;
}

/**
 * The most keys one owner may hold, revoked ones included (their listing shows them all): any
 * wallet can sign in to the web app and create keys, so the number is bounded.
 */
export const MAX_API_KEYS_PER_OWNER = 1_000;

export async function createApiKey(
  db: Kysely<Database>,
  options: CreateApiKeyOptions,
): Promise<CreatedApiKey> {
  const name = checkName(options.name);
  const owner = checkOwner(options.owner ?? "cli");
  const { held } = await db
    .selectFrom("api_keys")
    .where("owner", "=", owner)
    .select((eb) => eb.fn.countAll<number | string>().as("held"))
    .executeTakeFirstOrThrow();
  if (Number(held) >= MAX_API_KEYS_PER_OWNER) {
    throw new AbasError(ABAS_API__TOO_MANY_API_KEYS, { limit: MAX_API_KEYS_PER_OWNER });
  }
  const key = API_KEY_PREFIX + encodeBase58(randomBytes(API_KEY_SECRET_BYTES));
  const row: ApiKeyRow = {
    id: randomBytes(8).toString("hex"),
    name,
    prefix: key.slice(0, DISPLAY_PREFIX_LENGTH),
    key_hash: hashApiKey(key),
    owner,
    created_at: options.now ?? Date.now(),
    last_used_at: null,
    revoked_at: null,
  };
  await db.insertInto("api_keys").values(row).execute();
  return { key, record: toApiKeyRecord(row) };
}

export interface ListApiKeysOptions {
  readonly owner?: string;
  readonly includeRevoked?: boolean;
}

/** Newest first. Never returns a key or its hash. */
export async function listApiKeys(
  db: Kysely<Database>,
  options: ListApiKeysOptions = {},
): Promise<ApiKeyRecord[]> {
  let query = db
    .selectFrom("api_keys")
    .select(["id", "name", "prefix", "owner", "created_at", "last_used_at", "revoked_at"]);
  if (options.owner !== undefined) query = query.where("owner", "=", options.owner);
  if (options.includeRevoked === false) query = query.where("revoked_at", "is", null);
  const rows = await query.orderBy("created_at", "desc").orderBy("id", "asc").execute();
  return rows.map((row) => toApiKeyRecord({ ...row, key_hash: "" }));
}

export async function revokeApiKey(
  db: Kysely<Database>,
  id: string,
  now = Date.now(),
): Promise<ApiKeyRecord> {
  const row = await db.selectFrom("api_keys").selectAll().where("id", "=", id).executeTakeFirst();
  if (row === undefined) throw new AbasError(ABAS_API__API_KEY_NOT_FOUND, { id });
  if (row.revoked_at !== null) throw new AbasError(ABAS_API__API_KEY_ALREADY_REVOKED, { id });
  // The `revoked_at is null` guard keeps the first revocation time if two revocations race.
  await db
    .updateTable("api_keys")
    .set({ revoked_at: now })
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .execute();
  return toApiKeyRecord({ ...row, revoked_at: now });
}

/**
 * The record of a valid, unrevoked key; throws ABAS_API__API_KEY_MALFORMED, _UNKNOWN or _REVOKED.
 * Candidates are found by the non-secret display prefix and the hashes compared with
 * `timingSafeEqual`, so no database comparison runs on secret-derived data.
 */
export async function verifyApiKey(db: Kysely<Database>, presentedKey: string): Promise<ApiKeyRecord> {
  if (!isWellFormedApiKey(presentedKey)) {
    throw new AbasError(ABAS_API__API_KEY_MALFORMED, {
      reason: `expected ${API_KEY_PREFIX} followed by 32 to 44 base58 characters`,
    });
  }
  const presentedHash = Buffer.from(hashApiKey(presentedKey), "hex");
  const candidates = await db
    .selectFrom("api_keys")
    .selectAll()
    .where("prefix", "=", presentedKey.slice(0, DISPLAY_PREFIX_LENGTH))
    .execute();
  const match = candidates.find((candidate) => {
    const storedHash = Buffer.from(candidate.key_hash, "hex");
    return storedHash.length === presentedHash.length && timingSafeEqual(storedHash, presentedHash);
  });
  if (match === undefined) throw new AbasError(ABAS_API__API_KEY_UNKNOWN);
  if (match.revoked_at !== null) throw new AbasError(ABAS_API__API_KEY_REVOKED);
  return toApiKeyRecord(match);
}

/** Writes `last_used_at` unless a write in the last `intervalMs` (by any server) already did. */
export async function touchApiKeyLastUsed(
  db: Kysely<Database>,
  id: string,
  now = Date.now(),
  intervalMs = DEFAULT_LAST_USED_INTERVAL_MS,
): Promise<void> {
  await db
    .updateTable("api_keys")
    .set({ last_used_at: now })
    .where("id", "=", id)
    .where((eb) => eb.or([eb("last_used_at", "is", null), eb("last_used_at", "<=", now - intervalMs)]))
    .execute();
}

export interface LastUsedRecorder {
  /** Records a use of key `id`; writes at most once per interval per key, never blocks the caller. */
  record(id: string): void;
  /** Resolves when the writes started so far are done. */
  flush(): Promise<void>;
}

/**
 * Remembers in memory when each key was last written so a busy key costs one database write per
 * interval rather than one per request. Failures go to `onError`: a missed timestamp must never
 * fail the request that used the key.
 */
export function createLastUsedRecorder(
  db: Kysely<Database>,
  options: { intervalMs?: number; now?: () => number; onError?: (error: unknown) => void } = {},
): LastUsedRecorder {
  const intervalMs = options.intervalMs ?? DEFAULT_LAST_USED_INTERVAL_MS;
  const now = options.now ?? Date.now;
  const lastWritten = new Map<string, number>();
  const pending = new Set<Promise<void>>();
  return {
    record(id) {
      const at = now();
      const previous = lastWritten.get(id);
      if (previous !== undefined && at - previous < intervalMs) return;
      lastWritten.set(id, at);
      const write = touchApiKeyLastUsed(db, id, at, intervalMs)
        .catch((error: unknown) => options.onError?.(error))
        .finally(() => pending.delete(write));
      pending.add(write);
    },
    async flush() {
      await Promise.all([...pending]);
    },
  };
}
