/**
 * Ingest of every kind of program transaction, by an indexer started in this process against a
 * ledger process, into each test database.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";

import { IndexerStateKey, type DatabaseHandle } from "@abas/db";
import { ActionType, bytesToHex, computeBatchMerkleRoot, type LeafData } from "@abas/program-client";

import { createIndexerLogger, startIndexer, type RunningIndexer } from "../index.js";
import {
  commitBatch,
  fundedOperator,
  newAgent,
  publishLeaves,
  randomActionHash,
  sendRefusedAttest,
  type Agent,
  type Operator,
} from "./support/ledger-actors.js";
import { readDatabaseFacts, readLedgerFacts, readState, waitUntilCaughtUp } from "./support/ledger-truth.js";
import {
  createTestDatabase,
  DATABASE_KINDS,
  skipUnless,
  type TestDatabase,
} from "./support/test-databases.js";
import { startTestLedger, type TestLedger } from "./support/test-ledger.js";

for (const kind of DATABASE_KINDS) {
  describe(`ingest into ${kind}`, { skip: skipUnless(kind), timeout: 120_000 }, () => {
    let ledger: TestLedger;
    let testDatabase: TestDatabase;
    let database: DatabaseHandle;
    let indexer: RunningIndexer;
    let operator: Operator;

    const agentRow = async (agent: Agent) =>
      await database.db
        .selectFrom("agents")
        .selectAll()
        .where("agent", "=", agent.signer.address)
        .executeTakeFirst();

    before(async () => {
      ledger = await startTestLedger();
      testDatabase = await createTestDatabase(kind);
      database = testDatabase.open();
      indexer = await startIndexer({
        rpcUrl: ledger.rpcUrl,
        wsUrl: ledger.wsUrl,
        programId: ledger.programId,
        database,
        pollIntervalMs: 200,
        logger: createIndexerLogger("silent"),
      });
      operator = await fundedOperator(ledger);
    });

    after(async () => {
      await indexer?.stop();
      await database?.close();
      await testDatabase?.dispose();
      await ledger?.dispose();
    });

    it("indexes registered agents with their policy, and their status and policy updates", async () => {
      // Given two agents, one allowed only tool calls and decisions
      const narrow = await newAgent(ledger, operator);
      const broad = await newAgent(ledger, operator);
      await narrow.client.registerAgent({
        operatorKeypair: operator.secretKey,
        allowedActionTypes: ["ToolCall", "Decision"],
      });
      await broad.client.registerAgent({ operatorKeypair: operator.secretKey });
      await waitUntilCaughtUp(ledger, database);
      assert.equal((await agentRow(narrow))?.allowed_action_types, 0b0110);
      assert.equal((await agentRow(broad))?.status, "active");

      // When the operator suspends one, narrows the other's policy, then revokes the first
      await narrow.client.updateAgent({ operatorKeypair: operator.secretKey, status: "suspended" });
      await broad.client.updateAgent({
        operatorKeypair: operator.secretKey,
        status: "active",
        allowedActionTypes: ["Transaction"],
      });
      await waitUntilCaughtUp(ledger, database);
      assert.equal((await agentRow(narrow))?.status, "suspended");
      assert.equal((await agentRow(broad))?.allowed_action_types, 0b0001);
      await narrow.client.updateAgent({ operatorKeypair: operator.secretKey, status: "revoked" });
      await waitUntilCaughtUp(ledger, database);

      // Then each row is the agent account as the ledger holds it
      const narrowRow = await agentRow(narrow);
      assert.equal(narrowRow?.status, "revoked");
      assert.equal(narrowRow?.operator, operator.signer.address);
      const ledgerAgents = (await readLedgerFacts(ledger)).agents;
      const databaseAgents = (await readDatabaseFacts(database)).agents;
      assert.deepEqual(databaseAgents, ledgerAgents);
    });

    it("indexes single attestations, normal and in privacy mode, and the agent's counters", async () => {
      // Given a registered agent
      const agent = await newAgent(ledger, operator);
      await agent.client.registerAgent({ operatorKeypair: operator.secretKey });

      // When it attests one action normally and one in privacy mode
      const normal = await agent.client.attest({
        operatorKeypair: operator.secretKey,
        actionHash: randomActionHash(),
        actionType: "ToolCall",
      });
      const secret = await agent.client.attest({
        operatorKeypair: operator.secretKey,
        actionHash: randomActionHash(),
        actionType: "ModelInvocation",
        privacyMode: true,
      });
      await waitUntilCaughtUp(ledger, database);

      // Then each has one row, with the fields of its receipt
      for (const receipt of [normal, secret]) {
        const row = await database.db
          .selectFrom("attestations")
          .selectAll()
          .where("id", "=", receipt.attestationAddress)
          .executeTakeFirstOrThrow();
        assert.deepEqual(
          {
            kind: row.kind,
            agent: row.agent,
            operator: row.operator,
            action_type: row.action_type,
            privacy: row.privacy,
            stored_hash: row.stored_hash,
            agent_signature: row.agent_signature,
            tx_signature: row.tx_signature,
            slot: row.slot,
            timestamp: row.timestamp,
            batch_address: row.batch_address,
          },
          {
            kind: "single",
            agent: receipt.agent,
            operator: receipt.operator,
            action_type: receipt.actionType,
            privacy: receipt.privacyMode ? 1 : 0,
            stored_hash: receipt.storedHash,
            agent_signature: receipt.agentSignature,
            tx_signature: receipt.txSignature,
            slot: receipt.slot,
            timestamp: receipt.timestamp,
            batch_address: null,
          },
        );
      }
      // The privacy-mode row holds the commitment, never the action hash
      assert.notEqual(secret.storedHash, secret.actionHash);
      const counters = await agentRow(agent);
      assert.equal(counters?.attestation_count, 2);
      assert.equal(counters?.last_attested_at, secret.timestamp);
    });

    it("indexes a batch's items only once all its leaves are published, and as the leaves say", async () => {
      // Given a batch of 30 items whose root is committed, with only the first 12 leaves published
      const agent = await newAgent(ledger, operator);
      await agent.client.registerAgent({ operatorKeypair: operator.secretKey });
      const leaves: LeafData[] = Array.from({ length: 30 }, (_, i) => ({
        actionType: i % 2 === 0 ? ActionType.Decision : ActionType.Transaction,
        privacyMode: i % 5 === 0,
        storedHash: Uint8Array.from(randomBytes(32)),
      }));
      const batch = await commitBatch(ledger, agent, leaves);
      await publishLeaves(ledger, agent, batch, 0, 12);
      await waitUntilCaughtUp(ledger, database);

      // Then the batch is known, partly published, and has no items yet
      const partial = await database.db
        .selectFrom("batches")
        .selectAll()
        .where("tx_signature", "=", batch.commitSignature)
        .executeTakeFirstOrThrow();
      assert.equal(partial.leaves_published, 12);
      assert.equal(partial.complete, 0);
      assert.equal(partial.merkle_root, bytesToHex(computeBatchMerkleRoot(leaves)));
      const noItems = await database.db
        .selectFrom("attestations")
        .select("id")
        .where("batch_address", "=", partial.address)
        .execute();
      assert.deepEqual(noItems, []);

      // When the remaining leaves are published
      await publishLeaves(ledger, agent, batch, 12, 18);
      await waitUntilCaughtUp(ledger, database);

      // Then every item is a row, in leaf order, with the batch's signature, slot and commit transaction
      const items = await database.db
        .selectFrom("attestations")
        .selectAll()
        .where("batch_address", "=", partial.address)
        .orderBy("batch_index")
        .execute();
      assert.equal(items.length, 30);
      items.forEach((item, index) => {
        assert.equal(item.id, `${partial.address}:${index}`);
        assert.equal(item.kind, "batch");
        assert.equal(item.stored_hash, bytesToHex(leaves[index]!.storedHash));
        assert.equal(item.privacy, leaves[index]!.privacyMode ? 1 : 0);
        assert.equal(item.action_type, index % 2 === 0 ? "Decision" : "Transaction");
        assert.equal(item.tx_signature, batch.commitSignature);
        assert.equal(item.agent_signature, partial.agent_signature);
        assert.equal(item.slot, partial.slot);
        assert.equal(item.merkle_root, partial.merkle_root);
      });
      const complete = await database.db
        .selectFrom("batches")
        .select(["complete", "items_indexed", "leaves_published"])
        .where("address", "=", partial.address)
        .executeTakeFirstOrThrow();
      assert.deepEqual(complete, { complete: 1, items_indexed: 1, leaves_published: 30 });
      const counters = await agentRow(agent);
      assert.equal(counters?.batch_count, 1);
      assert.equal(counters?.batch_item_count, 30);
    });

    it("indexes batches sent through the SDK", async () => {
      // Given an agent that batch-attests 100 actions with the SDK
      const agent = await newAgent(ledger, operator);
      await agent.client.registerAgent({ operatorKeypair: operator.secretKey });
      const result = await agent.client.batchAttest({
        operatorKeypair: operator.secretKey,
        attestations: Array.from({ length: 100 }, (_, i) => ({
          actionHash: randomActionHash(),
          actionType: i % 3 === 0 ? "ToolCall" : "Decision",
          privacyMode: i % 7 === 0,
        })),
      });
      await waitUntilCaughtUp(ledger, database);

      // Then each receipt has its row
      const rows = await database.db
        .selectFrom("attestations")
        .selectAll()
        .where("batch_address", "=", result.batchAddress)
        .orderBy("batch_index")
        .execute();
      assert.deepEqual(
        rows.map((row) => [
          row.batch_index,
          row.stored_hash,
          row.action_type,
          row.merkle_root,
          row.tx_signature,
        ]),
        result.receipts.map((receipt) => [
          receipt.index,
          receipt.storedHash,
          receipt.actionType,
          receipt.merkleRoot,
          receipt.txSignature,
        ]),
      );
    });

    it("counts an attestation the program refuses for policy or status against the agent", async () => {
      // Given an agent allowed only tool calls
      const agent = await newAgent(ledger, operator);
      await agent.client.registerAgent({
        operatorKeypair: operator.secretKey,
        allowedActionTypes: ["ToolCall"],
      });

      // When its operator submits a transaction attestation (landed, failed: ActionTypeNotAllowed),
      // then suspends it and submits a tool call (AgentSuspended)
      const refused = await sendRefusedAttest(ledger, agent, ActionType.Transaction);
      assert.notEqual(refused.err, null);
      await agent.client.updateAgent({ operatorKeypair: operator.secretKey, status: "suspended" });
      const refusedWhileSuspended = await sendRefusedAttest(ledger, agent, ActionType.ToolCall);
      assert.notEqual(refusedWhileSuspended.err, null);
      await waitUntilCaughtUp(ledger, database);

      // Then both refusals are counted, recorded as failed transactions, and nothing was attested
      const row = await agentRow(agent);
      assert.equal(row?.policy_violation_count, 2);
      assert.equal(row?.attestation_count, 0);
      const failed = await database.db
        .selectFrom("processed_transactions")
        .select(["signature", "failed"])
        .where("signature", "in", [refused.signature, refusedWhileSuspended.signature])
        .execute();
      assert.deepEqual(
        failed.map((entry) => entry.failed),
        [1, 1],
      );
    });

    it("ends with the database equal to the ledger, and its checkpoint and heartbeat recorded", async () => {
      await waitUntilCaughtUp(ledger, database);
      assert.deepEqual(await readDatabaseFacts(database), await readLedgerFacts(ledger));
      const state = await readState(database);
      assert.ok(Number(state.get(IndexerStateKey.IndexedSlot)) > 0);
      assert.ok(Number(state.get(IndexerStateKey.HeartbeatAt)) > Date.now() - 10_000);
      assert.equal(state.get(IndexerStateKey.LastError), "");
      assert.equal(state.get(IndexerStateKey.Leader), indexer.status().instanceId);
      assert.equal(indexer.status().role, "leader");
    });
  });
}
