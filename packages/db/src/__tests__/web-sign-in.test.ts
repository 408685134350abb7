/** The web app's sign-in state on every dialect: nonces redeemed once, sessions, the shared key. */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { openTestDatabase, randomAddress, testDatabaseTargets, type TestDatabase } from "../testing.js";
import {
  deleteWebSession,
  findSignInNonce,
  findWebSession,
  loadOrStoreWebSecret,
  redeemSignInNonce,
  storeSignInNonce,
  storeWebSession,
} from "../web-sign-in.js";

const HOUR_MS = 60 * 60 * 1000;
const NOW = 1_795_000_000_000;

for (const target of testDatabaseTargets()) {
  describe(`web sign-in state on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    before(async () => {
      database = await openTestDatabase(target.dialect);
    });
    after(async () => {
      await database?.dispose();
    });

    it("stores a nonce bound to a browser, and redeems it exactly once", async () => {
      // Given a nonce issued to one browser
      await storeSignInNonce(
        database.db,
        { nonce: "a1".repeat(16), bindingHash: "b".repeat(64), issuedAt: NOW, expiresAt: NOW + 600_000 },
        HOUR_MS,
      );
      assert.deepEqual(await findSignInNonce(database.db, "a1".repeat(16)), {
        nonce: "a1".repeat(16),
        bindingHash: "b".repeat(64),
        issuedAt: NOW,
        expiresAt: NOW + 600_000,
        usedAt: null,
      });
      // When two replicas redeem it at once
      const redeemed = await Promise.all([
        redeemSignInNonce(database.db, "a1".repeat(16), NOW + 1),
        redeemSignInNonce(database.db, "a1".repeat(16), NOW + 2),
      ]);
      // Then exactly one of them did
      assert.deepEqual(redeemed.filter(Boolean).length, 1);
      assert.notEqual((await findSignInNonce(database.db, "a1".repeat(16)))!.usedAt, null);
      assert.equal(await findSignInNonce(database.db, "unknown"), undefined);
      assert.equal(await redeemSignInNonce(database.db, "unknown", NOW), false);
    });

    it("forgets nonces that expired longer ago than the retention when a new one is stored", async () => {
      await storeSignInNonce(
        database.db,
        { nonce: "old".padEnd(32, "0"), bindingHash: "c".repeat(64), issuedAt: NOW, expiresAt: NOW + 1 },
        HOUR_MS,
      );
      await storeSignInNonce(
        database.db,
        {
          nonce: "new".padEnd(32, "0"),
          bindingHash: "c".repeat(64),
          issuedAt: NOW + 2 * HOUR_MS,
          expiresAt: NOW + 2 * HOUR_MS + 600_000,
        },
        HOUR_MS,
      );
      assert.equal(await findSignInNonce(database.db, "old".padEnd(32, "0")), undefined);
      assert.notEqual(await findSignInNonce(database.db, "new".padEnd(32, "0")), undefined);
    });

    it("stores, finds and deletes a session by its token hash, forgetting expired ones", async () => {
      const address = randomAddress();
      const expired = {
        tokenHash: "e".repeat(64),
        address,
        csrfToken: "x",
        createdAt: NOW,
        expiresAt: NOW + 10,
      };
      const live = {
        tokenHash: "f".repeat(64),
        address,
        csrfToken: "y",
        createdAt: NOW + 20,
        expiresAt: NOW + HOUR_MS,
      };
      await storeWebSession(database.db, expired);
      // Storing a session later than the first one's expiry forgets the first
      await storeWebSession(database.db, live);
      assert.equal(await findWebSession(database.db, expired.tokenHash), undefined);
      assert.deepEqual(await findWebSession(database.db, live.tokenHash), live);
      await deleteWebSession(database.db, live.tokenHash);
      assert.equal(await findWebSession(database.db, live.tokenHash), undefined);
    });

    it("keeps the first secret stored under a name, for every replica", async () => {
      const [first, second] = await Promise.all([
        loadOrStoreWebSecret(database.db, "sign-in-cookie", "1".repeat(64)),
        loadOrStoreWebSecret(database.db, "sign-in-cookie", "2".repeat(64)),
      ]);
      assert.equal(first, second);
      assert.equal(await loadOrStoreWebSecret(database.db, "sign-in-cookie", "3".repeat(64)), first);
    });
  });
}
