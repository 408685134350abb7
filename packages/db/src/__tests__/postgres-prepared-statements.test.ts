/**
 * PostgreSQL reads (`readRows`) run as named statements, prepared once per connection
 * (create-database.ts): a kept statement must see the table as it is now, and texts past the
 * kept ones must still run.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { sql } from "kysely";

import { openDatabase, readRows, type DatabaseHandle } from "../create-database.js";
import { openTestDatabase, testDatabaseTargets, type TestDatabase } from "../testing.js";

const postgres = testDatabaseTargets().find((target) => target.dialect === "postgres")!;

describe("PostgreSQL's named read statements", { skip: postgres.skip }, () => {
  let database: TestDatabase;
  /** One connection, so that every read and pg_prepared_statements share one session. */
  let handle: DatabaseHandle;
  before(async () => {
    database = await openTestDatabase("postgres");
    handle = openDatabase({ url: database.url, maxConnections: 1 });
    await sql`create table numbers (n integer not null)`.execute(handle.db);
    await sql`insert into numbers (n) values (1), (2), (3)`.execute(handle.db);
  });
  after(async () => {
    await handle?.close();
    await database?.dispose();
  });

  it("prepares a text once and runs it again with other parameters", async () => {
    const text = "select n from numbers where n >= ? order by n";
    assert.deepEqual(await readRows(handle.db, text, [2]), [{ n: 2 }, { n: 3 }]);
    assert.deepEqual(await readRows(handle.db, text, [3]), [{ n: 3 }]);
    const prepared = await readRows<{ statement: string }>(
      handle.db,
      "select statement from pg_prepared_statements where name like ? order by prepare_time",
      ["abas\\_read\\_%"],
    );
    assert.deepEqual(
      prepared.filter((row) => row.statement.includes("from numbers where")).map((row) => row.statement),
      ["select n from numbers where n >= $1 order by n"],
    );
  });

  it("answers a kept statement with the columns the table has now", async () => {
    const text = "select * from numbers order by n";
    assert.deepEqual(await readRows(handle.db, text, []), [{ n: 1 }, { n: 2 }, { n: 3 }]);
    await sql`alter table numbers add column label text not null default 'x'`.execute(handle.db);
    assert.deepEqual(await readRows(handle.db, text, []), [
      { n: 1, label: "x" },
      { n: 2, label: "x" },
      { n: 3, label: "x" },
    ]);
  });

  it("runs texts past the kept ones", async () => {
    for (let value = 0; value < 300; value++) {
      assert.deepEqual(await readRows(handle.db, `select ${value}::int as value`, []), [{ value }]);
    }
  });
});
