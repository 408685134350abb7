/**
 * The database side of applying ledger transactions (one, or a chunk in one database transaction),
 * on a real (in-memory) SQLite database with hand-made transactions and account snapshots.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { IndexerStateKey, migrateToLatest, openDatabase, type DatabaseHandle } from "@abas/db";
import { AgentStatus, deriveAgentAddress } from "@abas/program-client";
import { address, getAddressEncoder, type Address, type Signature } from "@solana/kit";

import type { AccountSnapshot } from "../account-snapshot.js";
import { applyLedgerTransactions } from "../apply-ledger-transaction.js";
import { createIndexerLogger } from "../logger.js";
import type { ProgramTransaction } from "../transaction-decoder.js";

const OPERATOR = address("CGgnS9ZSpbfykiWCyBhvn2eMEbfCNdyGU9jzFQGysv6V");
const OTHER_OPERATOR = address("EaKqbrr54JkCKLB9gN9yRNqyRUfe1rw16j7MQt8C7dVh");
const AGENT = address("2qCLrCwU8g1Qg6T5MqXNQ8ujJL3dodVHUS1gKeJCAW1b");
const PROGRAM_ID = address("5RM2JWdhiGGfkBnB16BpZiJoXa79E1rW31pB4YWBZbkN");
const AGENT_ACCOUNT = (await deriveAgentAddress(PROGRAM_ID, AGENT)).address;
const logger = createIndexerLogger("silent");

/** The 128 bytes of an Agent account (docs/program.md). */
function agentAccountBytes(
  status: number,
  attestationCount: bigint,
  operator: Address = OPERATOR,
): Uint8Array {
  const bytes = new Uint8Array(128);
  const view = new DataView(bytes.buffer);
  bytes.set([16, 1, 255, status, 0b1111]);
  bytes.set(getAddressEncoder().encode(operator), 8);
  bytes.set(getAddressEncoder().encode(AGENT), 40);
  view.setBigInt64(72, 1_700_000_000n, true);
  view.setBigUint64(80, 5n, true);
  view.setBigInt64(88, 1_700_000_100n, true);
  view.setBigUint64(96, attestationCount, true);
  view.setBigInt64(120, attestationCount > 0n ? 1_700_000_200n : 0n, true);
  return bytes;
}

function snapshot(slot: bigint, accounts: Record<Address, Uint8Array>): AccountSnapshot {
  return { slot, dataOf: (account) => accounts[account] };
}

let signatures = 0;
function transaction(
  name: "register_agent" | "update_agent" | "attest",
  error: unknown = null,
  agentAccount: Address = AGENT_ACCOUNT,
): ProgramTransaction {
  signatures += 1;
  const accounts = name === "register_agent" ? [OPERATOR, AGENT, agentAccount] : [OPERATOR, agentAccount];
  return {
    signature: `sig${signatures}` as Signature,
    slot: BigInt(signatures),
    error,
    instructions: [
      {
        index: 0,
        inner: false,
        name,
        accounts,
        namedAccounts:
          name === "register_agent"
            ? { operator: OPERATOR, agent: AGENT, agentAccount }
            : { operator: OPERATOR, agentAccount },
        data: new Uint8Array([name === "register_agent" ? 1 : name === "update_agent" ? 2 : 3]),
      },
    ],
  };
}

type OneTransaction = Readonly<{
  programId: Address;
  transaction: ProgramTransaction;
  snapshot: AccountSnapshot;
  logger: typeof logger;
  appliedBy: string;
  now: number;
}>;

/** A chunk of one transaction, the checkpoint then being that transaction. */
async function applyLedgerTransaction(
  db: DatabaseHandle["db"],
  { transaction, snapshot, ...rest }: OneTransaction,
): Promise<"applied" | "already-applied"> {
  const result = await applyLedgerTransactions(db, {
    ...rest,
    transactions: [{ transaction, snapshot }],
    checkpoint: { signature: transaction.signature, slot: Number(transaction.slot) },
  });
  return result.applied === 1 ? "applied" : "already-applied";
}

describe("applyLedgerTransactions", () => {
  let database: DatabaseHandle;

  before(async () => {
    database = openDatabase({ url: ":memory:" });
    await migrateToLatest(database);
  });
  after(async () => await database.close());

  const agentRow = () =>
    database.db.selectFrom("agents").selectAll().where("agent", "=", AGENT).executeTakeFirstOrThrow();

  it("applies a transaction once however often it is seen, moving the checkpoint with it", async () => {
    // Given a registration
    const registration = transaction("register_agent");
    const state = snapshot(10n, { [AGENT_ACCOUNT]: agentAccountBytes(AgentStatus.Active, 0n) });

    // When it is applied twice
    const first = await applyLedgerTransaction(database.db, {
      programId: PROGRAM_ID,
      transaction: registration,
      snapshot: state,
      logger,
      appliedBy: "test-indexer",
      now: 1000,
    });
    const second = await applyLedgerTransaction(database.db, {
      programId: PROGRAM_ID,
      transaction: registration,
      snapshot: state,
      logger,
      appliedBy: "test-indexer",
      now: 2000,
    });

    // Then the second time changes nothing but confirms the cursor
    assert.deepEqual([first, second], ["applied", "already-applied"]);
    const processed = await database.db.selectFrom("processed_transactions").selectAll().execute();
    assert.deepEqual(processed, [
      {
        signature: registration.signature,
        slot: 1,
        failed: 0,
        processed_at: 1000,
        applied_by: "test-indexer",
      },
    ]);
    const cursor = await database.db.selectFrom("indexer_state").selectAll().orderBy("key").execute();
    assert.deepEqual(cursor, [
      { key: IndexerStateKey.CursorSignature, value: registration.signature },
      { key: IndexerStateKey.CursorSlot, value: "1" },
      { key: IndexerStateKey.LastIngestAt, value: "1000" },
    ]);
    const row = await agentRow();
    assert.equal(row.status, "active");
    assert.equal(row.state_slot, 10);
    assert.equal(row.last_attested_at, null);
  });

  it("never replaces an agent's state with an older one", async () => {
    // Given the agent as suspended at slot 30
    await applyLedgerTransaction(database.db, {
      programId: PROGRAM_ID,
      transaction: transaction("update_agent"),
      snapshot: snapshot(30n, { [AGENT_ACCOUNT]: agentAccountBytes(AgentStatus.Suspended, 3n) }),
      logger,
      appliedBy: "test-indexer",
      now: 3000,
    });
    // When a state read at an older slot arrives
    await applyLedgerTransaction(database.db, {
      programId: PROGRAM_ID,
      transaction: transaction("update_agent"),
      snapshot: snapshot(20n, { [AGENT_ACCOUNT]: agentAccountBytes(AgentStatus.Active, 1n) }),
      logger,
      appliedBy: "test-indexer",
      now: 4000,
    });
    // Then the newer state stays
    const row = await agentRow();
    assert.deepEqual([row.status, row.attestation_count, row.state_slot], ["suspended", 3, 30]);
  });

  it("counts a refusal once, keeps the count across state updates, and records the failed transaction", async () => {
    // Given an attest refused because the agent is suspended, seen twice
    const refused = transaction("attest", { InstructionError: [0, { Custom: 1202 }] });
    for (const now of [5000, 6000]) {
      await applyLedgerTransaction(database.db, {
        programId: PROGRAM_ID,
        transaction: refused,
        snapshot: snapshot(40n, {}),
        logger,
        appliedBy: "test-indexer",
        now,
      });
    }
    // When the agent's state is updated afterwards
    await applyLedgerTransaction(database.db, {
      programId: PROGRAM_ID,
      transaction: transaction("update_agent"),
      snapshot: snapshot(50n, { [AGENT_ACCOUNT]: agentAccountBytes(AgentStatus.Active, 3n) }),
      logger,
      appliedBy: "test-indexer",
      now: 7000,
    });
    // Then it counts once and survives the update
    const row = await agentRow();
    assert.deepEqual([row.status, row.policy_violation_count], ["active", 1]);
    const failed = await database.db
      .selectFrom("processed_transactions")
      .select("failed")
      .where("signature", "=", refused.signature)
      .executeTakeFirstOrThrow();
    assert.equal(failed.failed, 1);
  });

  it("fails, applying nothing, when a written account is not visible yet", async () => {
    // Given an attest whose accounts the snapshot lacks (an RPC node behind)
    const attest = transaction("attest");
    // Then applying it throws, and it is not marked processed
    await assert.rejects(
      applyLedgerTransaction(database.db, {
        programId: PROGRAM_ID,
        transaction: attest,
        snapshot: snapshot(60n, {}),
        logger,
        appliedBy: "test-indexer",
        now: 8000,
      }),
      { name: "AccountNotYetVisibleError" },
    );
    const processed = await database.db
      .selectFrom("processed_transactions")
      .select("signature")
      .where("signature", "=", attest.signature)
      .execute();
    assert.deepEqual(processed, []);
  });

  it("never indexes an Agent account that is not at its agent key's canonical address", async () => {
    // Given the agent's row, and an Agent account for the same key at another address, active and
    // under another operator (the program refuses to create one; the indexer does not take that on trust)
    const elsewhere = address("83NdANHnkAty7jqUaMVthZZvok2ChgLD6gUaDf2DZBRD");
    const before = await agentRow();

    // When its registration is applied
    await applyLedgerTransaction(database.db, {
      programId: PROGRAM_ID,
      transaction: transaction("register_agent", null, elsewhere),
      snapshot: snapshot(100n, { [elsewhere]: agentAccountBytes(AgentStatus.Active, 0n, OTHER_OPERATOR) }),
      logger,
      appliedBy: "test-indexer",
      now: 9000,
    });

    // Then the agent's row is unchanged
    assert.deepEqual(await agentRow(), before);
  });

  it("never gives an agent another operator, and keeps a revoked agent revoked", async () => {
    // Given the agent, then a state of its canonical account naming another operator
    const apply = async (slot: bigint, status: number, operator: Address = OPERATOR) =>
      await applyLedgerTransaction(database.db, {
        programId: PROGRAM_ID,
        transaction: transaction("update_agent"),
        snapshot: snapshot(slot, { [AGENT_ACCOUNT]: agentAccountBytes(status, 3n, operator) }),
        logger,
        appliedBy: "test-indexer",
        now: Number(slot) * 100,
      });
    await apply(150n, AgentStatus.Active, OTHER_OPERATOR);
    assert.equal((await agentRow()).operator, OPERATOR);

    // When the agent is revoked, and a later state shows it active again
    await apply(200n, AgentStatus.Revoked);
    await apply(210n, AgentStatus.Active);

    // Then it stays revoked, under its operator, at the revocation's state
    const row = await agentRow();
    assert.deepEqual([row.status, row.operator, row.state_slot], ["revoked", OPERATOR, 200]);
  });

  it("applies a chunk in one database transaction: a failure in it leaves nothing of the chunk, not even the cursor", async () => {
    // Given a chunk whose second transaction cannot be applied yet (its accounts not visible)
    const cursorBefore = await database.db
      .selectFrom("indexer_state")
      .selectAll()
      .where("key", "=", IndexerStateKey.CursorSignature)
      .executeTakeFirst();
    const update = transaction("update_agent");
    const attest = transaction("attest");
    const chunk = {
      programId: PROGRAM_ID,
      logger,
      appliedBy: "test-indexer",
      now: 10_000,
      checkpoint: { signature: attest.signature, slot: Number(attest.slot) },
    };
    const state = snapshot(200n, { [AGENT_ACCOUNT]: agentAccountBytes(AgentStatus.Active, 9n) });

    // Then applying it throws, and neither transaction is processed nor the cursor moved
    await assert.rejects(
      applyLedgerTransactions(database.db, {
        ...chunk,
        transactions: [
          { transaction: update, snapshot: state },
          { transaction: attest, snapshot: state },
        ],
      }),
      { name: "AccountNotYetVisibleError" },
    );
    const processed = await database.db
      .selectFrom("processed_transactions")
      .select("signature")
      .where("signature", "in", [update.signature, attest.signature])
      .execute();
    assert.deepEqual(processed, []);
    assert.deepEqual(
      await database.db
        .selectFrom("indexer_state")
        .selectAll()
        .where("key", "=", IndexerStateKey.CursorSignature)
        .executeTakeFirst(),
      cursorBefore,
    );

    // When the chunk is retried with the first already applied on its own
    assert.equal(
      await applyLedgerTransaction(database.db, { ...chunk, transaction: update, snapshot: state }),
      "applied",
    );
    const result = await applyLedgerTransactions(database.db, {
      ...chunk,
      transactions: [{ transaction: update, snapshot: state }],
    });

    // Then only what was not applied counts, and the cursor is the chunk's checkpoint
    assert.deepEqual(result, { applied: 0, alreadyApplied: 1 });
    const state2 = await database.db.selectFrom("indexer_state").selectAll().execute();
    assert.equal(state2.find((row) => row.key === IndexerStateKey.CursorSignature)?.value, attest.signature);
  });
});
