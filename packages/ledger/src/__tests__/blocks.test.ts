/**
 * Blocks, read with @solana/kit's own RPC calls: getBlock, getBlocks, getBlocksWithLimit, and the
 * errors a validator gives for what the ledger cannot answer.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  generateKeyPairSigner,
  type Base64EncodedWireTransaction,
  type KeyPairSigner,
  type Signature,
} from "@solana/kit";

import {
  fundedSigner,
  kitClients,
  LAMPORTS_PER_SOL,
  rpcCall,
  sleep,
  startLedgerProcess,
  type LedgerUnderTest,
} from "./support/ledger-under-test.js";
import { latestBlockhash, signTransfer } from "./support/transactions.js";

describe("blocks", () => {
  let ledger: LedgerUnderTest;
  let clients: ReturnType<typeof kitClients>;
  let payer: KeyPairSigner;
  let signature: Signature;
  let slot: bigint;

  before(async () => {
    ledger = await startLedgerProcess({ slotMs: 100 });
    clients = kitClients(ledger);
    payer = await fundedSigner(clients);
    // A few slots first: the listing below starts three slots before the transfer's.
    while ((await clients.rpc.getSlot().send()) < 4n) await sleep(50);
    const recipient = await generateKeyPairSigner();
    const transfer = await signTransfer(
      payer,
      recipient.address,
      LAMPORTS_PER_SOL,
      await latestBlockhash(ledger.rpcUrl),
    );
    // The ledger answers sendTransaction once the transaction is on disk and indexed.
    await clients.rpc
      .sendTransaction(transfer.base64 as Base64EncodedWireTransaction, { encoding: "base64" })
      .send();
    signature = transfer.signature as Signature;
    const landed = await clients.rpc
      .getTransaction(signature, { encoding: "json", maxSupportedTransactionVersion: 0 })
      .send();
    slot = landed!.slot;
    // Its block is served once its slot has ended
    while ((await clients.rpc.getSlot().send()) <= slot) await sleep(20);
  });
  after(async () => await ledger.dispose());

  test("getBlock returns the block of a slot with the transactions that landed in it", async () => {
    // When the block of the transfer's slot is read in full
    const block = await clients.rpc
      .getBlock(slot, { maxSupportedTransactionVersion: 0, transactionDetails: "full", encoding: "json" })
      .send();

    // Then it names its slot's blockhash, its parent, its height and time, and holds the transfer
    assert.ok(block);
    const { value: blockhashValid } = await clients.rpc.isBlockhashValid(block.blockhash).send();
    assert.equal(blockhashValid, true);
    assert.equal(block.parentSlot, slot - 1n);
    assert.equal(block.blockHeight, slot);
    assert.equal(block.blockTime, await clients.rpc.getBlockTime(slot).send());
    const parent = await clients.rpc
      .getBlock(slot - 1n, { transactionDetails: "none", rewards: false })
      .send();
    assert.equal(block.previousBlockhash, parent!.blockhash);
    const found = block.transactions.find((entry) => entry.transaction.signatures[0] === signature);
    assert.ok(found, "the transfer is in its slot's block");
    assert.equal(found.version, 0);
    assert.equal(found.meta?.err, null);
    assert.equal(found.meta?.fee, 5_000n);
    assert.deepEqual(found.meta?.rewards, []);
    assert.equal(found.transaction.message.instructions[0]?.stackHeight, 1);
    assert.deepEqual(block.rewards, []);

    // And with rewards false, the block has no rewards and each transaction's meta rewards null
    const withoutRewards = await clients.rpc
      .getBlock(slot, { maxSupportedTransactionVersion: 0, rewards: false })
      .send();
    assert.equal((withoutRewards as unknown as { rewards?: unknown }).rewards, undefined);
    assert.ok(withoutRewards?.transactions.every((entry) => entry.meta?.rewards === null));

    // And with transactionDetails "signatures" it lists the signatures only
    const signaturesOnly = await clients.rpc
      .getBlock(slot, { transactionDetails: "signatures", rewards: false })
      .send();
    assert.ok(signaturesOnly?.signatures.includes(signature));
    assert.equal((signaturesOnly as unknown as { transactions?: unknown }).transactions, undefined);
    assert.equal((signaturesOnly as unknown as { rewards?: unknown }).rewards, undefined);
  });

  test('getBlock with transactionDetails "accounts" gives each transaction\'s signatures and annotated account keys, and a meta of balances', async () => {
    // When the block of the transfer's slot is read with its transactions' accounts only
    const block = await clients.rpc
      .getBlock(slot, { maxSupportedTransactionVersion: 0, transactionDetails: "accounts" })
      .send();

    // Then the transfer is there as its signatures and its account keys (payer, recipient, System
    // program), each with signer, writable and source, beside its balances, with no instructions
    // or logs
    const found = block?.transactions.find((entry) => entry.transaction.signatures[0] === signature);
    assert.ok(found, "the transfer is in its slot's block");
    assert.equal(found.version, 0);
    assert.deepEqual(Object.keys(found.transaction).sort(), ["accountKeys", "signatures"]);
    assert.deepEqual(
      found.transaction.accountKeys.map(({ pubkey, signer, writable, source }) => [
        pubkey,
        signer,
        writable,
        source,
      ]),
      [
        [payer.address, true, true, "transaction"],
        [found.transaction.accountKeys[1]!.pubkey, false, true, "transaction"],
        ["11111111111111111111111111111111", false, false, "transaction"],
      ],
    );
    assert.deepEqual(Object.keys(found.meta!).sort(), [
      "err",
      "fee",
      "postBalances",
      "postTokenBalances",
      "preBalances",
      "preTokenBalances",
      "rewards",
      "status",
    ]);
    assert.equal(found.meta?.preBalances.length, 3);

    // And with rewards false, its meta has no rewards
    const withoutRewards = await clients.rpc
      .getBlock(slot, { maxSupportedTransactionVersion: 0, transactionDetails: "accounts", rewards: false })
      .send();
    assert.ok(withoutRewards?.transactions.every((entry) => !("rewards" in entry.meta!)));
  });

  test("getBlocks and getBlocksWithLimit list every slot up to the current one (none is skipped)", async () => {
    // When blocks are listed from a few slots before the transfer, once the slot after it has come
    while ((await clients.rpc.getSlot().send()) <= slot + 1n) await sleep(50);
    const start = slot - 3n;
    const range = await clients.rpc.getBlocks(start, slot).send();
    const limited = await clients.rpc.getBlocksWithLimit(start, 5).send();
    const open = await clients.rpc.getBlocks(start).send();
    const current = await clients.rpc.getSlot().send();

    // Then each slot is there, in order, and no list reaches the current slot
    assert.deepEqual(range, [start, start + 1n, start + 2n, slot]);
    assert.deepEqual(limited, [start, start + 1n, start + 2n, slot, slot + 1n]);
    assert.deepEqual(open.slice(0, 4), range);
    assert.ok(open[open.length - 1]! < current);
    const future = await clients.rpc.getBlocksWithLimit(current + 1000n, 10).send();
    assert.deepEqual(future, []);
  });

  test("the block of the current slot, which transactions can still land in, is not served until the slot ends", async () => {
    // When the current slot's block is asked for, and the slot is still current once answered
    // (slots last 100 ms here: tried again if it ended meanwhile)
    for (let attempt = 0; ; attempt += 1) {
      const current = await clients.rpc.getSlot().send();
      const block = await rpcCall(ledger.rpcUrl, "getBlock", [
        Number(current),
        { transactionDetails: "none" },
      ]);
      const listed = await clients.rpc.getBlocks(current - 2n).send();
      if ((await clients.rpc.getSlot().send()) !== current) {
        assert.ok(attempt < 20, "the slot never stayed current for three calls");
        continue;
      }
      // Then it is not available yet (-32004), and no listing names it
      assert.equal(block.error?.code, -32004);
      assert.equal(block.error?.message, `Block not available for slot ${current}`);
      assert.deepEqual(listed, [current - 2n, current - 1n]);
      break;
    }
  });

  test("what a block method cannot answer is a JSON-RPC error with the validator's code", async () => {
    const current = Number((await clients.rpc.getSlot().send()) + 1000n);
    // A slot that has not come yet: -32004
    const notYet = await rpcCall(ledger.rpcUrl, "getBlock", [current, { maxSupportedTransactionVersion: 0 }]);
    assert.equal(notYet.error?.code, -32004);
    assert.equal(notYet.error?.message, `Block not available for slot ${current}`);
    // A v0 transaction for a client that did not say it supports v0: -32015
    const version = await rpcCall(ledger.rpcUrl, "getBlock", [Number(slot)]);
    assert.equal(version.error?.code, -32015);
    // A transaction version the client supports need not be 0: a v0 transaction is shown to a client
    // that supports up to version 1
    const newerClient = await rpcCall(ledger.rpcUrl, "getBlock", [
      Number(slot),
      { transactionDetails: "signatures", maxSupportedTransactionVersion: 1 },
    ]);
    assert.equal(newerClient.error, undefined);
    // `processed`, which history methods refuse: -32602
    const processed = await rpcCall(ledger.rpcUrl, "getBlocks", [0, { commitment: "processed" }]);
    assert.equal(processed.error?.code, -32602);
    // A limit above 500,000: -32602
    const limit = await rpcCall(ledger.rpcUrl, "getBlocksWithLimit", [0, 500_001]);
    assert.equal(limit.error?.code, -32602);
    assert.equal(limit.error?.message, "Invalid params: limit must be an integer from 0 to 500000");
  });
});
