/**
 * Account snapshots: a group of more accounts than one `getMultipleAccounts` call takes (one
 * transaction can name hundreds through address lookup tables) is read from the real ledger in
 * several calls of one batch, each account's data where it belongs; calls answered at different
 * slots (a fault injected on purpose) are no snapshot.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { generateKeyPairSigner, type Address } from "@solana/kit";

import {
  MAX_ACCOUNTS_PER_SNAPSHOT,
  readAccountSnapshots,
  SnapshotSlotsDifferError,
} from "../account-snapshot.js";
import { fundedOperator, newAgent } from "./support/ledger-actors.js";
import { misbehavingServer } from "./support/misbehaving-rpc.js";
import { startTestLedger, type TestLedger } from "./support/test-ledger.js";

async function newAddresses(count: number): Promise<Address[]> {
  return await Promise.all(
    Array.from({ length: count }, async () => (await generateKeyPairSigner()).address),
  );
}

describe("readAccountSnapshots", () => {
  let ledger: TestLedger;
  let agentAccounts: Address[];
  before(async () => {
    // Slots of 20 s: the calls of one batch are answered in one slot, however loaded the machine
    // (a slot that ends between them makes the read fail, as the last test shows).
    ledger = await startTestLedger({ slotMs: 20_000 });
    const operator = await fundedOperator(ledger);
    agentAccounts = [];
    for (let i = 0; i < 3; i++) {
      const agent = await newAgent(ledger, operator);
      const registered = await agent.client.registerAgent({ operatorKeypair: operator.secretKey });
      agentAccounts.push(registered.agentAccountAddress);
    }
  });
  after(async () => {
    await ledger?.dispose();
  });

  it("reads a group of more accounts than one call takes, each program account's data in its place", async () => {
    // Given 250 accounts, the program's agent accounts among them in the first, second and third call
    const others = await newAddresses(247);
    const group = [
      agentAccounts[0]!,
      ...others.slice(0, 120),
      agentAccounts[1]!,
      ...others.slice(120),
      agentAccounts[2]!,
    ];
    assert.ok(group.length > 2 * MAX_ACCOUNTS_PER_SNAPSHOT);
    // When it is read with a small group and an empty one in the same batch
    const [large, small, empty] = await readAccountSnapshots(
      ledger.rpcUrl,
      ledger.programId,
      [group, [agentAccounts[1]!, others[0]!], []],
      "confirmed",
    );
    // Then every agent account has its data, the others none, and each snapshot has one slot
    for (const agentAccount of agentAccounts)
      assert.ok(large!.dataOf(agentAccount)!.length > 0, agentAccount);
    assert.ok(others.every((account) => large!.dataOf(account) === undefined));
    assert.deepEqual(small!.dataOf(agentAccounts[1]!), large!.dataOf(agentAccounts[1]!));
    assert.equal(small!.dataOf(agentAccounts[0]!), undefined);
    assert.equal(empty!.dataOf(agentAccounts[0]!), undefined);
    for (const snapshot of [large!, small!, empty!]) assert.equal(typeof snapshot.slot, "bigint");
  });

  it("refuses the calls of one group answered at different slots", async () => {
    // A fault injected on purpose: each call of the batch answered one slot later than the one before
    const server = await misbehavingServer((requests) => ({
      body: JSON.stringify(
        requests.map(({ id }) => ({
          jsonrpc: "2.0",
          id,
          result: { context: { slot: 1_000 + id }, value: Array.from({ length: 100 }, () => null) },
        })),
      ),
    }));
    try {
      await assert.rejects(
        readAccountSnapshots(server.url, ledger.programId, [await newAddresses(150)], "confirmed"),
        (error: unknown) =>
          error instanceof SnapshotSlotsDifferError && /were read at slots 1000 and 1001/.test(error.message),
      );
    } finally {
      await server.close();
    }
  });
});
