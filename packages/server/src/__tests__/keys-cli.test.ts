import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import {
  ABAS_API__API_KEY_ALREADY_REVOKED,
  ABAS_API__API_KEY_NOT_FOUND,
  ABAS_API__API_KEY_REVOKED,
} from "@abas/errors";
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from "@abas/db/testing";

import { problemOf, startApiUnderTest, type ApiUnderTest } from "./support/api-under-test.js";
import { runBin } from "./support/run-bin.js";

interface CreatedKeyJson {
  key: string;
  id: string;
  name: string;
  owner: string;
  prefix: string;
  createdAt: number;
  revokedAt: number | null;
}

for (const target of testDatabaseTargets()) {
  describe(`abas-server keys on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let api: ApiUnderTest;
    before(async () => {
      database = await openTestDatabase(target.dialect);
      // Keys looked up on every request: the revocation test here is about the CLI; the delay a
      // verified-key cache adds is tested in auth.test.ts.
      api = await startApiUnderTest(database, { apiKeyCacheMs: 0 });
    });
    after(async () => {
      await api?.close();
      await database?.dispose();
    });

    const keys = (...args: string[]) => runBin(["keys", ...args], database.env);

    it("creates, lists and revokes a key, and the API then refuses it", async () => {
      // When a key is created with --json
      const created = await keys("create", "--name", "ci pipeline", "--owner", "ops", "--json");
      assert.equal(created.exitCode, 0, created.stderr);
      const key = JSON.parse(created.stdout) as CreatedKeyJson;
      assert.match(key.key, /^abas_[1-9A-HJ-NP-Za-km-z]{40,44}$/);
      assert.deepEqual(
        [key.name, key.owner, key.prefix, key.revokedAt],
        ["ci pipeline", "ops", key.key.slice(0, 12), null],
      );

      // Then the API accepts it
      assert.equal((await api.get("/attestations", { authorization: `Bearer ${key.key}` })).status, 200);

      // And list shows it, without the secret, in JSON and as a table
      const listedJson = await keys("list", "--json");
      assert.equal(listedJson.exitCode, 0, listedJson.stderr);
      const listed = JSON.parse(listedJson.stdout) as CreatedKeyJson[];
      const entry = listed.find((candidate) => candidate.id === key.id);
      assert.ok(entry && !("key" in entry));
      assert.ok(!listedJson.stdout.includes(key.key));
      const table = await keys("list", "--owner", "ops");
      assert.equal(table.exitCode, 0);
      assert.match(table.stdout, /^ID +NAME +PREFIX +OWNER +CREATED +LAST USED +STATUS$/m);
      assert.match(table.stdout, new RegExp(`^${key.id} +ci pipeline +${key.prefix}… +ops .* active$`, "m"));

      // When it is revoked
      const revoked = await keys("revoke", key.id);
      assert.equal(revoked.exitCode, 0, revoked.stderr);
      assert.match(revoked.stdout, new RegExp(`API key ${key.id} \\("ci pipeline"\\) revoked`));

      // Then the API refuses it as revoked
      const refused = await api.get("/attestations", { authorization: `Bearer ${key.key}` });
      assert.equal(refused.status, 401);
      assert.equal(problemOf(refused).code, ABAS_API__API_KEY_REVOKED);
      const afterRevoke = JSON.parse((await keys("list", "--json")).stdout) as CreatedKeyJson[];
      assert.ok(afterRevoke.find((candidate) => candidate.id === key.id)?.revokedAt);
    });

    it("prints the key once in text mode with how to use it and the database that keeps it", async () => {
      const created = await keys("create", "--name", "text");
      assert.equal(created.exitCode, 0, created.stderr);
      const [firstLine] = created.stdout.split("\n");
      assert.match(firstLine!, /^abas_[1-9A-HJ-NP-Za-km-z]+$/);
      assert.match(created.stdout, /shown only once/);
      const where =
        target.dialect === "sqlite" ? `sqlite ${database.url}` : `postgres ${new URL(database.url).host}`;
      assert.ok(created.stdout.includes(`It is kept in ${where}`), created.stdout);
      assert.match(
        created.stdout,
        /a service that reads another database \(its DATA_DIR or DATABASE_URL\) does not know it\.$/m,
      );
      assert.doesNotMatch(created.stdout, /postgres:\/\//);
    });

    it("fails with exit code 1 and the reason for an unknown or already revoked key", async () => {
      const unknown = await keys("revoke", "0000000000000000");
      assert.equal(unknown.exitCode, 1);
      assert.match(
        unknown.stderr,
        new RegExp(`No API key with id 0000000000000000 \\(code ${ABAS_API__API_KEY_NOT_FOUND}\\)`),
      );
      const created = JSON.parse(
        (await keys("create", "--name", "twice", "--json")).stdout,
      ) as CreatedKeyJson;
      assert.equal((await keys("revoke", created.id)).exitCode, 0);
      const again = await keys("revoke", created.id, "--json");
      assert.equal(again.exitCode, 1);
      assert.match(
        again.stderr,
        new RegExp(`already revoked \\(code ${ABAS_API__API_KEY_ALREADY_REVOKED}\\)`),
      );
      const badName = await keys("create", "--name", " ");
      assert.equal(badName.exitCode, 1);
      assert.match(badName.stderr, /Invalid API key name: it is empty/);
    });

    it("fails with exit code 2 and the usage for bad usage", async () => {
      for (const args of [["create"], ["rotate"], ["revoke"], ["list", "--colour"], []]) {
        const result = await keys(...args);
        assert.equal(result.exitCode, 2, `${args.join(" ")}: ${result.stderr}`);
        assert.match(result.stderr, /Usage:/);
      }
    });

    it("prints the usage for --help after any command, and only the usage", async () => {
      for (const args of [
        ["--help"],
        ["list", "--help"],
        ["create", "-h"],
        ["revoke", "some-id", "--help"],
      ]) {
        const result = await keys(...args);
        assert.equal(result.exitCode, 0, `${args.join(" ")}: ${result.stderr}`);
        assert.match(result.stdout, /^Usage:/);
        assert.equal(result.stderr, "");
      }
    });

    it("list and revoke in a SQLite database that is not there: exit code 2, naming it, and nothing made", async () => {
      const dataDir = join(tmpdir(), `abas-keys-no-database-${process.pid}`);
      for (const args of [["list"], ["revoke", "some-id"]]) {
        const result = await runBin(["keys", ...args], { DATA_DIR: dataDir });
        assert.equal(result.exitCode, 2, result.stderr);
        assert.match(
          result.stderr,
          new RegExp(
            `^abas-server keys: no database at ${dataDir}/abas\\.sqlite: is DATA_DIR \\(or DATABASE_URL\\) the one the service uses\\?`,
          ),
        );
        assert.equal(existsSync(dataDir), false);
      }
    });

    it("fails with exit code 2 when the database setting is invalid", async () => {
      const result = await runBin(["keys", "list"], { DATABASE_URL: "mysql://localhost/abas" });
      assert.equal(result.exitCode, 2);
      assert.match(result.stderr, /Invalid server configuration DATABASE_URL: expected a postgres:\/\//);
    });
  });
}
