/**
 * Slots and the Clock sysvar follow the wall clock, with or without transactions, and
 * blockhashes expire 150 slots after their slot, as on a validator. Slots are 10 ms here.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { generateKeyPairSigner, type KeyPairSigner } from "@solana/kit";

import {
  fundedSigner,
  kitClients,
  rpcCall,
  sleep,
  startLedgerProcess,
  type LedgerUnderTest,
} from "./support/ledger-under-test.js";
import { latestBlockhash, sendBase64, signTransfer } from "./support/transactions.js";

const SLOT_MS = 10;
const CLOCK_SYSVAR = "SysvarC1ock11111111111111111111111111111111";

async function result<T>(ledger: LedgerUnderTest, method: string, params?: unknown): Promise<T> {
  const reply = await rpcCall(ledger.rpcUrl, method, params);
  assert.equal(reply.error, undefined, JSON.stringify(reply.error));
  return reply.result as T;
}

async function waitForSlot(ledger: LedgerUnderTest, slot: number): Promise<void> {
  while ((await result<number>(ledger, "getSlot")) < slot) await sleep(SLOT_MS * 5);
}

describe("ledger time", () => {
  let ledger: LedgerUnderTest;
  let payer: KeyPairSigner;

  before(async () => {
    ledger = await startLedgerProcess({ slotMs: SLOT_MS });
    payer = await fundedSigner(kitClients(ledger), 10n);
  });
  after(async () => await ledger.dispose());

  test("slots, block height, block time and the Clock sysvar advance with no transactions", async () => {
    // Given the current slot and its block time
    const firstSlot = await result<number>(ledger, "getSlot");
    const firstTime = await result<number>(ledger, "getBlockTime", [firstSlot]);

    // When 1.2 seconds pass without any transaction
    await sleep(1200);

    // Then about 120 slots have passed, block time moved on, and the Clock sysvar shows both
    const slot = await result<number>(ledger, "getSlot");
    assert.ok(slot - firstSlot >= 80, `only ${slot - firstSlot} slots passed`);
    assert.ok((await result<number>(ledger, "getBlockHeight")) >= slot);
    const time = await result<number>(ledger, "getBlockTime", [slot]);
    assert.ok(time > firstTime, "block time advanced");
    assert.ok(Math.abs(time - Date.now() / 1000) < 3, "block time is wall time");
    const epochInfo = await result<{ absoluteSlot: number; epoch: number; slotIndex: number }>(
      ledger,
      "getEpochInfo",
    );
    assert.ok(epochInfo.absoluteSlot >= slot);
    assert.equal(epochInfo.slotIndex, epochInfo.absoluteSlot % 432_000);
    const clock = await result<{ value: { data: [string, string] } }>(ledger, "getAccountInfo", [
      CLOCK_SYSVAR,
      { encoding: "base64" },
    ]);
    const data = Buffer.from(clock.value.data[0], "base64");
    assert.ok(Number(data.readBigUInt64LE(0)) >= slot, "Clock.slot");
    assert.ok(Math.abs(Number(data.readBigInt64LE(32)) - Date.now() / 1000) < 3, "Clock.unix_timestamp");

    // And a future slot has no block time yet
    const future = await rpcCall(ledger.rpcUrl, "getBlockTime", [slot + 1_000_000]);
    assert.equal(future.error?.code, -32004);
  });

  test("a blockhash older than 150 slots is refused with BlockhashNotFound", async () => {
    // Given a transfer signed with the current blockhash
    const lifetime = await latestBlockhash(ledger.rpcUrl);
    const recipient = await generateKeyPairSigner();
    const transaction = await signTransfer(payer, recipient.address, 1_000_000n, lifetime);

    // When the chain moves past its last valid block height
    await waitForSlot(ledger, Number(lifetime.lastValidBlockHeight) + 1);

    // Then the blockhash is no longer valid, preflight refuses it and without preflight it is dropped
    const valid = await result<{ value: boolean }>(ledger, "isBlockhashValid", [lifetime.blockhash]);
    assert.equal(valid.value, false);
    const reply = await sendBase64(ledger.rpcUrl, transaction);
    assert.equal(reply.error?.code, -32002);
    assert.equal(reply.error?.message, "Transaction simulation failed: Blockhash not found");
    assert.deepEqual((reply.error?.data as { err: unknown; logs: unknown }).err, "BlockhashNotFound");
    assert.deepEqual((reply.error?.data as { logs: unknown }).logs, []);
    const skipped = await sendBase64(ledger.rpcUrl, transaction, { skipPreflight: true });
    assert.equal(skipped.result, transaction.signature);
    const statuses = await result<{ value: unknown[] }>(ledger, "getSignatureStatuses", [
      [transaction.signature],
    ]);
    assert.deepEqual(statuses.value, [null]);
    assert.equal(
      await result<{ value: number }>(ledger, "getBalance", [recipient.address]).then((r) => r.value),
      0,
    );
  });

  test("a blockhash from 75 slots ago is still accepted", async () => {
    // Given a transfer signed with the current blockhash
    const lifetime = await latestBlockhash(ledger.rpcUrl);
    const recipient = await generateKeyPairSigner();
    const transaction = await signTransfer(payer, recipient.address, 1_000_000n, lifetime);

    // When 75 of its 150 slots have passed
    await waitForSlot(ledger, Number(lifetime.lastValidBlockHeight) - 75);

    // Then it still lands
    assert.equal(
      (await result<{ value: boolean }>(ledger, "isBlockhashValid", [lifetime.blockhash])).value,
      true,
    );
    assert.equal((await sendBase64(ledger.rpcUrl, transaction)).result, transaction.signature);
    assert.equal(
      await result<{ value: number }>(ledger, "getBalance", [recipient.address]).then((r) => r.value),
      1_000_000,
    );
  });
});
