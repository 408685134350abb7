import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { readRows } from "../create-database.js";
import { encodeCursor } from "../queries/cursor.js";
import { pagePlan, type ListAttestationsOptions } from "../queries/list-attestations.js";
import { openTestDatabase, randomAddress, randomHash, type TestDatabase } from "../testing.js";

/**
 * A page costs the rows it reads only if its index hands them over newest first: a plan that sorts
 * ("USE TEMP B-TREE FOR ORDER BY") reads every match first, so a filter that many attestations share
 * (a stored hash repeated in batch leaves, an agent's millions) would cost the whole set on every
 * page. SQLite is told which index each page walks, so its plans are checked here; PostgreSQL picks
 * its own from its statistics. (A `batch` page sorts the items of one batch, at most 100.)
 */
const PAGES: Record<string, ListAttestationsOptions> = {
  "no filter": {},
  agent: { agent: randomAddress() },
  operator: { operator: randomAddress() },
  actionType: { actionType: "ToolCall" },
  storedHash: { storedHash: randomHash() },
};

describe("SQLite plans of the attestation pages", () => {
  let database: TestDatabase;
  before(async () => {
    database = await openTestDatabase("sqlite");
  });
  after(async () => {
    await database?.dispose();
  });

  async function planOf(statement: { text: string; parameters: unknown[] }): Promise<string[]> {
    const rows = await readRows<{ detail: string }>(
      database.db,
      `explain query plan ${statement.text}`,
      statement.parameters,
    );
    return rows.map((row) => row.detail);
  }

  for (const [name, filter] of Object.entries(PAGES)) {
    for (const [variant, options] of [
      ["first page", filter],
      ["cursor page", { ...filter, cursor: encodeCursor({ slot: 500, seq: 9 }) }],
      ["with a filter its index does not serve", { ...filter, privacy: true }],
    ] as const) {
      it(`${name}, ${variant}: its index gives the rows in order, nothing sorted`, async () => {
        const plan = pagePlan("sqlite", options);
        const statements = [plan.page("*", { slot: 400, seq: 3 }), ...(plan.scanEnd ? [plan.scanEnd] : [])];
        for (const statement of statements) {
          const details = await planOf(statement);
          assert.ok(details.length > 0);
          assert.ok(
            details.every((detail) => !detail.includes("TEMP B-TREE")),
            `${statement.text}\n${details.join("\n")}`,
          );
        }
      });
    }
  }
});
