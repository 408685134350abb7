/**
 * The node and its cluster of one, read with @solana/kit's own RPC calls: getIdentity,
 * getLeaderSchedule, getVoteAccounts.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { generateKeyPairSigner } from "@solana/kit";

import { SLOTS_PER_EPOCH } from "../ledger/ledger-time.js";
import {
  kitClients,
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
