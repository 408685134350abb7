import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import {
  ABAS_API__API_KEY_ALREADY_REVOKED,
  ABAS_API__API_KEY_MALFORMED,
  ABAS_API__API_KEY_NOT_FOUND,
  ABAS_API__API_KEY_REVOKED,
  ABAS_API__API_KEY_UNKNOWN,
  ABAS_API__INVALID_API_KEY_NAME,
  isAbasError,
  type AbasErrorCode,
} from "@abas/errors";

import {
  createApiKey,
  createLastUsedRecorder,
  hashApiKey,
  listApiKeys,
  revokeApiKey,
  verifyApiKey,
} from "../api-keys.js";
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from "../testing.js";

async function assertRejectsWithCode(promise: Promise<unknown>, code: AbasErrorCode): Promise<void> {
  await assert.rejects(promise, (error) => isAbasError(error, code));
}

for (const target of testDatabaseTargets()) {
  describe(`API keys on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    before(async () => {
      database = await openTestDatabase(target.dialect);
    });
    after(async () => {
      await database?.dispose();
    });

    it("creates a key shown once and stores only its SHA-256 and a display prefix", async () => {
      // When a key is created
      const { key, record } = await createApiKey(database.db, { name: "reporting", owner: "ops" });
      // Then it is abas_ followed by base58 of 32 random bytes
      assert.match(key, /^abas_[1-9A-HJ-NP-Za-km-z]{40,44}$/);
      assert.equal(record.prefix, key.slice(0, 12));
      assert.deepEqual(
        [record.name, record.owner, record.lastUsedAt, record.revokedAt],
        ["reporting", "ops", null, null],
      );
      // And the database holds its hash, never the key
      const row = await database.db
        .selectFrom("api_keys")
        .selectAll()
        .where("id", "=", record.id)
        .executeTakeFirstOrThrow();
      assert.equal(row.key_hash, hashApiKey(key));
      assert.ok(!Object.values(row).some((value) => value === key));
    });

    it("gives two keys different secrets and ids", async () => {
      const first = await createApiKey(database.db, { name: "a" });
      const second = await createApiKey(database.db, { name: "a" });
      assert.notEqual(first.key, second.key);
      assert.notEqual(first.record.id, second.record.id);
      assert.equal(first.record.owner, "cli");
    });

    it("refuses an empty, overlong or control-character name", async () => {
      for (const name of ["", "   ", "x".repeat(101), "bad\nname"]) {
        await assertRejectsWithCode(createApiKey(database.db, { name }), ABAS_API__INVALID_API_KEY_NAME);
      }
    });

    it("lists keys without their secret or hash", async () => {
      const { record } = await createApiKey(database.db, { name: "listed", owner: "lister" });
      const listed = await listApiKeys(database.db, { owner: "lister" });
      assert.deepEqual(listed, [record]);
      assert.ok(!("key_hash" in listed[0]!) && !("key" in listed[0]!));
    });

    it("verifies a valid key, and names why another is refused", async () => {
      // Given a valid key and a revoked one
      const valid = await createApiKey(database.db, { name: "valid" });
      const revoked = await createApiKey(database.db, { name: "revoked" });
      await revokeApiKey(database.db, revoked.record.id);
      // Then the valid one verifies
      assert.equal((await verifyApiKey(database.db, valid.key)).id, valid.record.id);
      // And each refusal has its own code
      await assertRejectsWithCode(verifyApiKey(database.db, "not-a-key"), ABAS_API__API_KEY_MALFORMED);
      await assertRejectsWithCode(verifyApiKey(database.db, `${valid.key}0`), ABAS_API__API_KEY_MALFORMED);
      const sameLengthUnknown = valid.key.slice(0, -1) + (valid.key.endsWith("2") ? "3" : "2");
      await assertRejectsWithCode(verifyApiKey(database.db, sameLengthUnknown), ABAS_API__API_KEY_UNKNOWN);
      await assertRejectsWithCode(verifyApiKey(database.db, revoked.key), ABAS_API__API_KEY_REVOKED);
    });

    it("revokes once, then says the key is already revoked; an unknown id is not found", async () => {
      const { record } = await createApiKey(database.db, { name: "once" });
      const revoked = await revokeApiKey(database.db, record.id, 1_000);
      assert.equal(revoked.revokedAt, 1_000);
      await assertRejectsWithCode(revokeApiKey(database.db, record.id), ABAS_API__API_KEY_ALREADY_REVOKED);
      await assertRejectsWithCode(revokeApiKey(database.db, "no-such-id"), ABAS_API__API_KEY_NOT_FOUND);
      const [listed] = await listApiKeys(database.db, { owner: "cli", includeRevoked: true }).then((keys) =>
        keys.filter((key) => key.id === record.id),
      );
      assert.equal(listed?.revokedAt, 1_000);
    });

    it("records last use at most once per interval per key", async () => {
      // Given a recorder with a one-minute interval and a controllable clock
      const { record } = await createApiKey(database.db, { name: "busy" });
      let clock = 1_000_000;
      const recorder = createLastUsedRecorder(database.db, { intervalMs: 60_000, now: () => clock });
      const lastUsed = async () =>
        (
          await database.db
            .selectFrom("api_keys")
            .select("last_used_at")
            .where("id", "=", record.id)
            .executeTakeFirstOrThrow()
        ).last_used_at;
      // When the key is used three times within the minute
      recorder.record(record.id);
      clock += 10_000;
      recorder.record(record.id);
      clock += 10_000;
      recorder.record(record.id);
      await recorder.flush();
      // Then the first use is what is stored
      assert.equal(Number(await lastUsed()), 1_000_000);
      // When it is used again after the interval
      clock += 60_000;
      recorder.record(record.id);
      await recorder.flush();
      // Then the time moves on
      assert.equal(Number(await lastUsed()), 1_080_000);
    });
  });
}
