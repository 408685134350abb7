import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { ApiAttestationPage, findContractMismatch } from "@abas/api-contract";
import { ABAS_API__INVALID_CURSOR, ABAS_API__INVALID_PARAMETER, isAbasError } from "@abas/errors";

import {
  listAttestations,
  listAttestationsJson,
  type ListAttestationsOptions,
} from "../queries/list-attestations.js";
import {
  buildAttestation,
  openTestDatabase,
  randomAddress,
  seedAttestations,
  seedBatch,
  testDatabaseTargets,
  type TestDatabase,
} from "../testing.js";

const T = 1_765_000_000;

for (const target of testDatabaseTargets()) {
  describe(`listAttestationsJson on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    const agent = randomAddress();
    let batchAddress: string;

    before(async () => {
      database = await openTestDatabase(target.dialect);
      // Singles of every action type, private and public, and a batch: every column and both
      // shapes of `batch` appear.
      const types = ["ToolCall", "ModelInvocation", "Decision", "Transaction"] as const;
      await seedAttestations(
        database.db,
        Array.from({ length: 12 }, (_, i) =>
          buildAttestation({
            slot: 10 + i,
            timestamp: T + i * 60,
            agent: i % 3 === 0 ? agent : randomAddress(),
            action_type: types[i % 4],
            privacy: i % 2,
          }),
        ),
      );
      const { batch } = await seedBatch(database.db, {
        agent,
        operator: randomAddress(),
        slot: 30,
        timestamp: T + 3_600,
        itemCount: 4,
        actionTypes: ["Decision", "ToolCall"],
        privacy: true,
      });
      batchAddress = batch.address;
    });
    after(async () => {
      await database?.dispose();
    });

    async function assertSameBytes(options: ListAttestationsOptions): Promise<string> {
      const json = await listAttestationsJson(database.db, options);
      const page = await listAttestations(database.db, options);
      assert.equal(json, JSON.stringify(page), JSON.stringify(options));
      assert.equal(findContractMismatch(ApiAttestationPage, JSON.parse(json)), undefined);
      return json;
    }

    it("gives the bytes JSON.stringify gives of listAttestations' page, under every filter", async () => {
      const cases: ListAttestationsOptions[] = [
        {},
        { limit: 1 },
        { limit: 100 },
        { agent },
        { actionType: "Decision" },
        { privacy: true },
        { privacy: false, limit: 3 },
        { batch: batchAddress },
        { since: T + 120, until: T + 600 },
        { agent, actionType: "ToolCall" },
        { agent: randomAddress() },
      ];
      for (const options of cases) await assertSameBytes(options);
    });

    it("walks every page by its cursors exactly as listAttestations does", async () => {
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = JSON.parse(await assertSameBytes({ limit: 3, cursor })) as ApiAttestationPage;
        cursor = page.pagination.nextCursor ?? undefined;
        pages++;
      } while (cursor !== undefined);
      assert.equal(pages, Math.ceil(16 / 3));
    });

    it("refuses a bad limit and a bad cursor with their codes, before any query", async () => {
      await assert.rejects(listAttestationsJson(database.db, { limit: 101 }), (error) =>
        isAbasError(error, ABAS_API__INVALID_PARAMETER),
      );
      await assert.rejects(listAttestationsJson(database.db, { cursor: "bm9wZQ" }), (error) =>
        isAbasError(error, ABAS_API__INVALID_CURSOR),
      );
    });
  });
}
