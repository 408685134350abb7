import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { ABAS_API__AGENT_NOT_FOUND, ABAS_API__INVALID_PARAMETER, isAbasError } from "@abas/errors";
import { computeReputation } from "@abas/db";
import {
  buildAttestation,
  openTestDatabase,
  randomAddress,
  seedAgent,
  seedAttestations,
  testDatabaseTargets,
  type TestDatabase,
} from "@abas/db/testing";

import { problemOf, startApiUnderTest, type ApiUnderTest } from "./support/api-under-test.js";

const DAY = 86_400;
const T = 1_765_000_000;

for (const target of testDatabaseTargets()) {
  describe(`GET /api/v1/agents/:id on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    let api: ApiUnderTest;
    before(async () => {
      database = await openTestDatabase(target.dialect);
      api = await startApiUnderTest(database);
    });
    after(async () => {
      await api?.close();
      await database?.dispose();
    });

    it("returns the agent's policy, metrics and reputation with its components", async () => {
      // Given a suspended agent registered 200 days before T, with two attestations (one private)
      const agent = await seedAgent(database.db, {
        status: "suspended",
        registered_at: T - 200 * DAY,
        updated_at: T - DAY,
        allowed_action_types: 0b0011,
        attestation_count: 2,
        last_attested_at: T,
        policy_violation_count: 1,
      });
      await seedAttestations(database.db, [
        buildAttestation({
          agent: agent.agent,
          operator: agent.operator,
          slot: 1,
          timestamp: T - 2 * DAY,
          action_type: "Transaction",
        }),
        buildAttestation({
          agent: agent.agent,
          operator: agent.operator,
          slot: 2,
          timestamp: T,
          action_type: "ToolCall",
          privacy: 1,
        }),
      ]);
      // When it is fetched over HTTP
      const reply = await api.get(`/agents/${agent.agent}`);
      // Then the profile carries names, counts, windows ending at T and the capped score
      assert.equal(reply.status, 200, reply.text);
      const profile = await api.client.getAgent(agent.agent);
      assert.deepEqual(reply.body, profile);
      assert.equal(profile.status, "suspended");
      assert.deepEqual(profile.policy.allowedActionTypes, ["Transaction", "ToolCall"]);
      assert.deepEqual(profile.metrics.attestations.byActionType, {
        Transaction: 1,
        ToolCall: 1,
        Decision: 0,
        ModelInvocation: 0,
      });
      assert.deepEqual(profile.metrics.recent, {
        referenceTime: T,
        last24h: 1,
        last7d: 2,
        activeDaysLast30: 2,
      });
      assert.deepEqual(profile.metrics.privacy, { count: 1, share: 0.5 });
      assert.equal(profile.metrics.policyViolations, 1);
      assert.deepEqual(
        profile.reputation,
        computeReputation({
          status: "suspended",
          registeredAt: T - 200 * DAY,
          attestationCount: 2,
          activeDaysInWindow: 2,
          policyViolations: 1,
          referenceTime: T,
        }),
      );
      assert.equal(profile.reputation.version, "1");
      assert.ok(profile.reputation.score <= 40, "suspended agents are capped at 40");
    });

    it("finds the agent by its Agent account address too", async () => {
      const agent = await seedAgent(database.db);
      const profile = await api.client.getAgent(agent.address);
      assert.equal(profile.agent, agent.agent);
    });

    it("answers 404 with its code for an agent that is not indexed", async () => {
      const unknown = randomAddress();
      const reply = await api.get(`/agents/${unknown}`);
      assert.equal(reply.status, 404);
      assert.deepEqual(
        [problemOf(reply).code, problemOf(reply).name],
        [ABAS_API__AGENT_NOT_FOUND, "ABAS_API__AGENT_NOT_FOUND"],
      );
      await assert.rejects(api.client.getAgent(unknown), (error) =>
        isAbasError(error, ABAS_API__AGENT_NOT_FOUND),
      );
    });

    it("answers 400 for an id that is not a base58 public key", async () => {
      for (const id of ["not-a-key", "0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl", "x".repeat(45)]) {
        const reply = await api.get(`/agents/${id}`);
        assert.equal(reply.status, 400, id);
        assert.deepEqual(problemOf(reply).context, {
          parameter: "id",
          reason: "must be a base58 public key or address (32 to 44 characters)",
        });
        assert.equal(problemOf(reply).code, ABAS_API__INVALID_PARAMETER);
      }
    });
  });
}
