import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import type { ApiAttestationPage } from "@abas/api-contract";

import { decodeCursor } from "../queries/cursor.js";
import {
  listAttestations,
  listAttestationsJson,
  PAGE_SCAN_LIMIT,
  type ListAttestationsOptions,
} from "../queries/list-attestations.js";
import {
  buildAttestation,
  openTestDatabase,
  randomAddress,
  seedAttestations,
  testDatabaseTargets,
  type TestDatabase,
} from "../testing.js";
import type { NewAttestationRow } from "../schema.js";

const T = 1_765_000_000;
const ROWS = 2 * PAGE_SCAN_LIMIT + 2_000;
const FIRST_SLOT = 100;

for (const target of testDatabaseTargets()) {
  describe(`pages whose filters one index does not serve, on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    const agents = [randomAddress(), randomAddress(), randomAddress()];
    let rows: NewAttestationRow[];

    before(async () => {
      database = await openTestDatabase(target.dialect);
      // One attestation a slot, oldest first; Decisions and private ones are rare.
      rows = Array.from({ length: ROWS }, (_, i) =>
        buildAttestation({
          slot: FIRST_SLOT + i,
          timestamp: T + i,
          agent: agents[i % 3],
          action_type: i % 1_000 === 0 ? "Decision" : "ToolCall",
          privacy: i % 4_000 === 1 ? 1 : 0,
        }),
      );
      await seedAttestations(database.db, rows);
    });
    after(async () => {
      await database?.dispose();
    });

    /** Every page of the walk under `options`, following the cursors to the end. */
    async function walk(options: ListAttestationsOptions): Promise<ApiAttestationPage[]> {
      const pages: ApiAttestationPage[] = [];
      let cursor: string | undefined;
      do {
        const page = await listAttestations(database.db, { ...options, cursor });
        assert.equal(await listAttestationsJson(database.db, { ...options, cursor }), JSON.stringify(page));
        pages.push(page);
        cursor = page.pagination.nextCursor ?? undefined;
        assert.equal(page.pagination.hasMore, cursor !== undefined);
      } while (cursor !== undefined);
      return pages;
    }

    function expectedIds(keep: (row: NewAttestationRow) => boolean): string[] {
      return rows
        .filter(keep)
        .reverse()
        .map((row) => row.id);
    }

    it("examines at most PAGE_SCAN_LIMIT attestations a page: a time range before them all ends after a few empty pages", async () => {
      const pages = await walk({ until: T - 1 });
      assert.equal(pages.length, Math.ceil(ROWS / PAGE_SCAN_LIMIT));
      for (const page of pages) assert.deepEqual(page.data, []);
      // The first page stopped at the PAGE_SCAN_LIMIT-th newest attestation, and the next starts after it.
      const first = decodeCursor(pages[0]!.pagination.nextCursor!);
      assert.equal(first.slot, FIRST_SLOT + ROWS - PAGE_SCAN_LIMIT);
      assert.equal(pages.at(-1)!.pagination.hasMore, false);
    });

    it("walks the exact matches of combined filters newest first, each once, in pages of at most `limit`", async () => {
      const cases: [ListAttestationsOptions, (row: NewAttestationRow) => boolean][] = [
        [
          { agent: agents[0], actionType: "Decision" },
          (row) => row.agent === agents[0] && row.action_type === "Decision",
        ],
        [{ privacy: true }, (row) => row.privacy === 1],
        [
          { agent: agents[1], privacy: false, limit: 100 },
          (row) => row.agent === agents[1] && row.privacy === 0,
        ],
        [
          { since: T + 3_000, until: T + 9_500, actionType: "Decision" },
          (row) => row.action_type === "Decision" && row.timestamp >= T + 3_000 && row.timestamp < T + 9_500,
        ],
        [{ since: T + 11_990 }, (row) => row.timestamp >= T + 11_990],
      ];
      for (const [options, keep] of cases) {
        const pages = await walk({ limit: 20, ...options });
        const limit = options.limit ?? 20;
        for (const page of pages) assert.ok(page.data.length <= limit, JSON.stringify(options));
        assert.deepEqual(
          pages.flatMap((page) => page.data.map((item) => item.id)),
          expectedIds(keep),
          JSON.stringify(options),
        );
      }
    });

    it("fills every page when one index serves the filter and the cursor", async () => {
      const pages = await walk({ agent: agents[2], limit: 100 });
      const expected = expectedIds((row) => row.agent === agents[2]);
      assert.equal(pages.length, Math.ceil(expected.length / 100));
      for (const page of pages.slice(0, -1)) assert.equal(page.data.length, 100);
      assert.deepEqual(
        pages.flatMap((page) => page.data.map((item) => item.id)),
        expected,
      );
    });
  });
}
