/**
 * Remembers keys that verified, for at most `maxAgeMs` from the start of their verification, so a
 * busy key costs one database lookup per `maxAgeMs` instead of one per request. The price is a
 * bounded revocation delay: a key revoked (on any server) is refused at the latest `maxAgeMs` after
 * the revocation committed. Refused keys are never remembered: each refusal is looked up again
 * (and counted by the failed-key limiter). Entries are keyed by the key's SHA-256, not the key.
 */
import { hashApiKey, verifyApiKey, type ApiKeyRecord, type Database } from "@abas/db";
import type { Kysely } from "kysely";
import { monotonicMs } from "./monotonic-clock.js";

export interface VerifiedApiKeyCacheOptions {
  readonly db: Kysely<Database>;
  /** How long a verification stands; 0 looks every key up on every request. */
  readonly maxAgeMs: number;
  readonly now?: () => number;
  /** Past this many keys, the oldest verification is dropped; default 10,000. */
  readonly maxEntries?: number;
}

export interface VerifiedApiKeyCache {
  /** The key's record, from a verification at most `maxAgeMs` old; throws verifyApiKey's errors. */
  verify(presentedKey: string): Promise<ApiKeyRecord>;
}

interface Verification {
  readonly record: ApiKeyRecord;
  readonly startedAt: number;
}

const DEFAULT_MAX_ENTRIES = 10_000;

export function createVerifiedApiKeyCache(options: VerifiedApiKeyCacheOptions): VerifiedApiKeyCache {
  const now = options.now ?? monotonicMs;
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const verifications = new Map<string, Verification>();
  return {
    async verify(presentedKey) {
      if (options.maxAgeMs === 0) return verifyApiKey(options.db, presentedKey);
      const hash = hashApiKey(presentedKey);
      const remembered = verifications.get(hash);
      const age = remembered === undefined ? undefined : now() - remembered.startedAt;
      // (a clock that went back verifies again)
      if (age !== undefined && age >= 0 && age <= options.maxAgeMs) return remembered!.record;
      verifications.delete(hash);
      // The age counts from before the lookup: a revocation that committed after it started may be missed.
      const startedAt = now();
      const record = await verifyApiKey(options.db, presentedKey);
      if (verifications.size >= maxEntries) verifications.delete(verifications.keys().next().value!);
      verifications.set(hash, { record, startedAt });
      return record;
    },
  };
}
