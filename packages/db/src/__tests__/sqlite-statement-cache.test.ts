/**
 * SQLite's prepared statements are kept by SQL text (create-database.ts): a kept statement must
 * run again after being streamed, and see the schema as it is now.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { sql } from "kysely";

import { openTestDatabase, type TestDatabase } from "../testing.js";

describe("SQLite's statement cache", () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase("sqlite");
    await sql`create table numbers (n integer not null)`.execute(database.db);
    await sql`insert into numbers (n) values (1), (2), (3)`.execute(database.db);
  });
  after(async () => {
    await database?.dispose();
  });

  const everyNumber = () => database.db.selectFrom("numbers" as never).selectAll();

  it("runs a query again, streamed and not, with the same statement text", async () => {
    for (let round = 0; round < 2; round++) {
      const streamed: number[] = [];
      for await (const row of everyNumber().stream()) streamed.push((row as { n: number }).n);
      assert.deepEqual(streamed, [1, 2, 3]);
      assert.equal((await everyNumber().execute()).length, 3);
    }
  });

  it("answers a kept statement with the columns the table has now", async () => {
    assert.deepEqual(await everyNumber().execute(), [{ n: 1 }, { n: 2 }, { n: 3 }]);
    await sql`alter table numbers add column label text not null default 'x'`.execute(database.db);
    assert.deepEqual(await everyNumber().execute(), [
      { n: 1, label: "x" },
      { n: 2, label: "x" },
      { n: 3, label: "x" },
    ]);
  });
});
