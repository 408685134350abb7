/**
 * The node and its cluster of one, read with @solana/kit's own RPC calls (and @solana/web3.js's,
 * whose response schemas are strict): getIdentity, getClusterNodes, getSupply, getLeaderSchedule,
 * getVoteAccounts.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { generateKeyPairSigner, lamports } from "@solana/kit";
import { Connection } from "@solana/web3.js";

import { SLOTS_PER_EPOCH } from "../ledger/ledger-time.js";
import {
  fundedSigner,
  kitClients,
  LAMPORTS_PER_SOL,
  rpcCall,
  startLedgerProcess,
  type LedgerUnderTest,
} from "./support/ledger-under-test.js";

describe("node methods", () => {
  let ledger: LedgerUnderTest;
  let clients: ReturnType<typeof kitClients>;

  before(async () => {
    ledger = await startLedgerProcess();
    clients = kitClients(ledger);
  });
  after(async () => await ledger.dispose());

  test("getIdentity is the faucet's key, which leads every slot of the epoch", async () => {
    // When the identity and the leader schedule are read
    const { identity } = await clients.rpc.getIdentity().send();
    const schedule = await clients.rpc.getLeaderSchedule().send();
    const forIdentity = await clients.rpc.getLeaderSchedule(null, { identity }).send();
    const other = (await generateKeyPairSigner()).address;
    const forOther = await clients.rpc.getLeaderSchedule(null, { identity: other }).send();

    // Then the identity is the faucet, and it leads each of the epoch's slots
    assert.equal(identity, ledger.faucet);
    assert.deepEqual(Object.keys(schedule ?? {}), [identity]);
    const slots = schedule![identity]!;
    assert.equal(BigInt(slots.length), SLOTS_PER_EPOCH);
    assert.equal(slots[0], 0n);
    assert.equal(slots[slots.length - 1], SLOTS_PER_EPOCH - 1n);
    assert.deepEqual(Object.keys(forIdentity ?? {}), [identity]);
    assert.deepEqual(forOther, {});
  });

  test("getClusterNodes lists this node, serving JSON-RPC and subscriptions only", async () => {
    // When the cluster's nodes are read, with kit and with web3.js
    const nodes = await clients.rpc.getClusterNodes().send();
    const web3Nodes = await new Connection(ledger.rpcUrl).getClusterNodes();

    // Then there is one, the faucet's identity, at the ledger's own RPC and WebSocket addresses
    const { host: rpc } = new URL(ledger.rpcUrl);
    const { host: pubsub } = new URL(ledger.wsUrl);
    assert.deepEqual(nodes, [
      {
        pubkey: ledger.faucet,
        gossip: null,
        tvu: null,
        tpu: null,
        tpuQuic: null,
        tpuForwards: null,
        tpuForwardsQuic: null,
        tpuVote: null,
        serveRepair: null,
        rpc,
        pubsub,
        version: "3.0.0",
        featureSet: 3_294_202_862,
        shredVersion: 0,
        clientId: null,
      },
    ]);
    assert.equal(web3Nodes[0]?.rpc, rpc);
  });

  test("getSupply counts every lamport as circulating, and a payment moves none out of it", async () => {
    // Given the supply now
    const before = (await clients.rpc.getSupply().send()).value;

    // When 3 SOL are airdropped (a faucet transfer whose fee is burned in part)
    const recipient = await fundedSigner(clients, 3n);
    const after = (await clients.rpc.getSupply({ excludeNonCirculatingAccountsList: true }).send()).value;

    // Then everything circulates, the recipient's 3 SOL are part of the total, and the total
    // only shrank by at most the fee
    assert.equal(before.circulating, before.total);
    assert.equal(before.nonCirculating, 0n);
    assert.deepEqual(before.nonCirculatingAccounts, []);
    const fee = 5_000n;
    assert.ok(
      after.total <= before.total && after.total >= before.total - fee,
      `${before.total} -> ${after.total}`,
    );
    const balance = await clients.rpc.getBalance(recipient.address).send();
    assert.equal(balance.value, lamports(3n * LAMPORTS_PER_SOL));
    // web3.js reads lamports as JavaScript numbers (so beyond 2^53, rounded), as from any validator
    const web3Supply = await new Connection(ledger.rpcUrl).getSupply();
    assert.equal(web3Supply.value.total, Number(after.total));
  });

  test("getLeaderSchedule is null for an epoch after the next one, as on a validator", async () => {
    const farAhead = await clients.rpc.getLeaderSchedule(SLOTS_PER_EPOCH * 2n).send();
    assert.equal(farAhead, null);
    const next = await clients.rpc.getLeaderSchedule(SLOTS_PER_EPOCH).send();
    assert.notEqual(next, null);
  });

  test("getVoteAccounts has none: nothing votes on this ledger", async () => {
    assert.deepEqual(await clients.rpc.getVoteAccounts().send(), { current: [], delinquent: [] });
    assert.deepEqual(await clients.rpc.getVoteAccounts({ keepUnstakedDelinquents: true }).send(), {
      current: [],
      delinquent: [],
    });
  });

  test("bad parameters are -32602 naming the parameter", async () => {
    const identity = await rpcCall(ledger.rpcUrl, "getLeaderSchedule", [
      null,
      { identity: "not-an-address" },
    ]);
    assert.equal(identity.error?.code, -32602);
    assert.equal(identity.error?.message, 'Invalid params: identity is not base58: "not-an-address"');
    const vote = await rpcCall(ledger.rpcUrl, "getVoteAccounts", [{ votePubkey: 7 }]);
    assert.equal(vote.error?.code, -32602);
    assert.equal(vote.error?.message, "Invalid params: votePubkey must be a string");
    const extra = await rpcCall(ledger.rpcUrl, "getIdentity", [1]);
    assert.equal(extra.error?.code, -32602);
    assert.equal(extra.error?.message, "Invalid params: getIdentity takes at most 0 parameters, got 1");
  });
});
