import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { getAgent } from "../queries/get-agent.js";
import {
  buildAttestation,
  openTestDatabase,
  seedAgent,
  seedAttestations,
  testDatabaseTargets,
  type TestDatabase,
} from "../testing.js";

const T = 1_765_000_000;

for (const target of testDatabaseTargets()) {
  describe(`an agent's activity figures on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    before(async () => {
      database = await openTestDatabase(target.dialect);
    });
    after(async () => {
      await database?.dispose();
    });

    async function agentWith(attestations: number) {
      const agent = await seedAgent(database.db);
      await seedAttestations(
        database.db,
        Array.from({ length: attestations }, (_, i) =>
          buildAttestation({ slot: 10 + i, timestamp: T + i, agent: agent.agent, operator: agent.operator }),
        ),
      );
      return agent;
    }

    it("are computed again on every request below 25,000 attestations", async () => {
      const agent = await agentWith(24_999);
      assert.equal((await getAgent(database.db, agent.agent))!.metrics.attestations.total, 24_999);
      await seedAttestations(database.db, [
        buildAttestation({ slot: 50_000, timestamp: T + 50_000, agent: agent.agent }),
      ]);
      assert.equal((await getAgent(database.db, agent.agent))!.metrics.attestations.total, 25_000);
    });

    it("are reused from 25,000 attestations on, while the agent's state is read fresh", async () => {
      const agent = await agentWith(25_000);
      const first = (await getAgent(database.db, agent.agent))!;
      assert.equal(first.metrics.attestations.total, 25_000);
      await seedAttestations(database.db, [
        buildAttestation({ slot: 60_000, timestamp: T + 60_000, agent: agent.agent }),
      ]);
      await database.db
        .updateTable("agents")
        .set({ status: "suspended" })
        .where("agent", "=", agent.agent)
        .execute();
      const second = (await getAgent(database.db, agent.agent))!;
      assert.equal(second.metrics.attestations.total, 25_000);
      assert.equal(second.metrics.recent.referenceTime, first.metrics.recent.referenceTime);
      assert.equal(second.status, "suspended");
    });
  });
}
