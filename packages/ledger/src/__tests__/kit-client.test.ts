/**
 * @solana/kit's RPC and subscriptions clients work against the ledger unchanged.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { deriveIssuerAddresses } from "@abas/program-client";
import { getTransferSolInstruction } from "@solana-program/system";
import {
  appendTransactionMessageInstructions,
  assertIsTransactionWithBlockhashLifetime,
  compileTransactionMessage,
  createSolanaRpcSubscriptions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageEncoder,
  getBase64Decoder,
  getSignatureFromTransaction,
  lamports,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Base64EncodedWireTransaction,
  type KeyPairSigner,
  type Signature,
  type TransactionMessageBytesBase64,
} from "@solana/kit";

import {
  fundedSigner,
  kitClients,
  LAMPORTS_PER_SOL,
  startLedgerProcess,
  type LedgerUnderTest,
} from "./support/ledger-under-test.js";

describe("a @solana/kit client", () => {
  let ledger: LedgerUnderTest;
  let clients: ReturnType<typeof kitClients>;
  let payer: KeyPairSigner;

  before(async () => {
    ledger = await startLedgerProcess();
    clients = kitClients(ledger);
    payer = await fundedSigner(clients, 100n);
  });
  after(async () => await ledger.dispose());

  async function signedTransfer(to: Address, amount: bigint) {
    const { value: latest } = await clients.rpc.getLatestBlockhash().send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) =>
        appendTransactionMessageInstructions(
          [getTransferSolInstruction({ source: payer, destination: to, amount })],
          m,
        ),
    );
    return { message, transaction: await signTransactionMessageWithSigners(message) };
  }

  test("airdrops and transfers SOL with sendAndConfirmTransaction", async () => {
    // Given a funded payer and a new recipient
    const recipient = await generateKeyPairSigner();
    assert.equal((await clients.rpc.getBalance(payer.address).send()).value, 100n * LAMPORTS_PER_SOL);

    // When the payer sends 1 SOL and waits for confirmation
    const { transaction } = await signedTransfer(recipient.address, LAMPORTS_PER_SOL);
    assertIsTransactionWithBlockhashLifetime(transaction);
    await sendAndConfirmTransactionFactory(clients)(transaction, { commitment: "confirmed" });

    // Then the recipient holds it and the payer paid it plus a 5,000-lamport fee
    assert.equal((await clients.rpc.getBalance(recipient.address).send()).value, LAMPORTS_PER_SOL);
    assert.equal((await clients.rpc.getBalance(payer.address).send()).value, 99n * LAMPORTS_PER_SOL - 5_000n);
  });

  test("getTransaction returns the transaction in json and base64, with its status metadata", async () => {
    // Given a landed transfer
    const recipient = await generateKeyPairSigner();
    const { transaction } = await signedTransfer(recipient.address, 2n * LAMPORTS_PER_SOL);
    assertIsTransactionWithBlockhashLifetime(transaction);
    await sendAndConfirmTransactionFactory(clients)(transaction, { commitment: "confirmed" });
    const signature = getSignatureFromTransaction(transaction);

    // When it is fetched as JSON
    const json = await clients.rpc
      .getTransaction(signature, {
        encoding: "json",
        maxSupportedTransactionVersion: 0,
        commitment: "confirmed",
      })
      .send();

    // Then it carries the message, the version and the metadata a validator returns
    assert.ok(json);
    assert.equal(json.version, 0);
    assert.deepEqual(json.transaction.signatures, [signature]);
    assert.deepEqual(json.transaction.message.accountKeys.slice(0, 2), [payer.address, recipient.address]);
    assert.equal(json.meta?.err, null);
    assert.deepEqual(json.meta?.status, { Ok: null });
    assert.equal(json.meta?.fee, 5_000n);
    assert.equal(json.meta!.preBalances[0]! - json.meta!.postBalances[0]!, 2n * LAMPORTS_PER_SOL + 5_000n);
    assert.equal(json.meta?.postBalances[1], 2n * LAMPORTS_PER_SOL);
    assert.ok(json.meta?.logMessages?.includes("Program 11111111111111111111111111111111 success"));
    assert.equal(typeof json.meta?.computeUnitsConsumed, "bigint");
    assert.deepEqual(json.meta?.loadedAddresses, { writable: [], readonly: [] });
    assert.deepEqual(json.meta?.rewards, []);
    assert.ok(typeof json.blockTime === "bigint" && json.blockTime > 1_700_000_000n);

    // And as base64 it is exactly the bytes that were sent
    const base64 = await clients.rpc
      .getTransaction(signature, { encoding: "base64", maxSupportedTransactionVersion: 0 })
      .send();
    assert.deepEqual(base64?.transaction, [getBase64EncodedWireTransaction(transaction), "base64"]);
    assert.equal(base64?.slot, json.slot);
  });

  test("getSignaturesForAddress pages newest first with limit, before and until", async () => {
    // Given three transfers to one recipient
    const recipient = await generateKeyPairSigner();
    const signatures: Signature[] = [];
    for (const amount of [1n, 2n, 3n]) {
      const { transaction } = await signedTransfer(recipient.address, amount * LAMPORTS_PER_SOL);
      assertIsTransactionWithBlockhashLifetime(transaction);
      await sendAndConfirmTransactionFactory(clients)(transaction, { commitment: "confirmed" });
      signatures.push(getSignatureFromTransaction(transaction));
    }
    const [first, second, third] = signatures;

    // When their history is listed
    const all = await clients.rpc.getSignaturesForAddress(recipient.address).send();
    const firstPage = await clients.rpc.getSignaturesForAddress(recipient.address, { limit: 2 }).send();
    const nextPage = await clients.rpc.getSignaturesForAddress(recipient.address, { before: second! }).send();
    const newerThanFirst = await clients.rpc
      .getSignaturesForAddress(recipient.address, { until: first! })
      .send();

    // Then it is newest first, pages and stops where asked
    assert.deepEqual(
      all.map((s) => s.signature),
      [third, second, first],
    );
    assert.deepEqual(
      firstPage.map((s) => s.signature),
      [third, second],
    );
    assert.deepEqual(
      nextPage.map((s) => s.signature),
      [first],
    );
    assert.deepEqual(
      newerThanFirst.map((s) => s.signature),
      [third, second],
    );
    assert.equal(all[0]?.err, null);
    assert.equal(all[0]?.memo, null);
    assert.equal(all[0]?.confirmationStatus, "finalized");
    assert.ok((all[0]?.blockTime ?? 0n) > 0n);
  });

  test("getProgramAccounts filters the ABAS Credential and Schemas by memcmp and dataSize", async () => {
    // Given the accounts genesis created with the program's `initialize`
    const issuer = await deriveIssuerAddresses(ledger.programId);

    // When the program's accounts are filtered by first byte (base58 and base64) and by size
    const credentials = await clients.rpc
      .getProgramAccounts(ledger.programId, {
        encoding: "base64",
        filters: [{ memcmp: { offset: 0n, bytes: "1" as never, encoding: "base58" } }],
      })
      .send();
    const schemas = await clients.rpc
      .getProgramAccounts(ledger.programId, {
        encoding: "base64",
        filters: [{ memcmp: { offset: 0n, bytes: "AQ==" as never, encoding: "base64" } }],
      })
      .send();
    const bySize = await clients.rpc
      .getProgramAccounts(ledger.programId, {
        encoding: "base64",
        filters: [{ dataSize: 45n }],
        withContext: true,
      })
      .send();

    // Then exactly the Credential (first byte 0, 45 bytes) and the two Schemas (first byte 1) match
    assert.deepEqual(
      credentials.map((a) => a.pubkey),
      [issuer.credential.address],
    );
    assert.deepEqual(
      schemas.map((a) => a.pubkey).sort(),
      [issuer.attestationSchema.address, issuer.batchSchema.address].sort(),
    );
    assert.deepEqual(
      bySize.value.map((a) => a.pubkey),
      [issuer.credential.address],
    );
    assert.equal(typeof bySize.context.slot, "bigint");

    // And getAccountInfo returns the Credential's data in base64 and base58
    const base64 = await clients.rpc.getAccountInfo(issuer.credential.address, { encoding: "base64" }).send();
    assert.equal(base64.value?.owner, ledger.programId);
    assert.equal(base64.value?.space, 45n);
    const bytes = Buffer.from(base64.value!.data[0], "base64");
    assert.equal(bytes[0], 0);
    assert.equal(bytes.subarray(37, 41).toString(), "ABAS");
    const base58 = await clients.rpc.getAccountInfo(issuer.credential.address, { encoding: "base58" }).send();
    assert.equal(base58.value?.data[1], "base58");
  });

  test("simulateTransaction and getFeeForMessage answer without changing anything", async () => {
    // Given a signed but unsent transfer
    const recipient = await generateKeyPairSigner();
    const { message, transaction } = await signedTransfer(recipient.address, LAMPORTS_PER_SOL);

    // When it is simulated, with the recipient's post-state requested
    const simulation = await clients.rpc
      .simulateTransaction(getBase64EncodedWireTransaction(transaction), {
        encoding: "base64",
        sigVerify: true,
        accounts: { addresses: [recipient.address], encoding: "base64" },
      })
      .send();

    // Then it succeeds with logs, compute units and the would-be balance, but nothing landed
    assert.equal(simulation.value.err, null);
    assert.ok(simulation.value.logs?.some((line) => line.includes("success")));
    assert.ok((simulation.value.unitsConsumed ?? 0n) > 0n);
    assert.equal(simulation.value.accounts?.[0]?.lamports, LAMPORTS_PER_SOL);
    assert.equal((await clients.rpc.getBalance(recipient.address).send()).value, 0n);

    // And its fee is one signature's
    const messageBase64 = getBase64Decoder().decode(
      getCompiledTransactionMessageEncoder().encode(compileTransactionMessage(message)),
    ) as TransactionMessageBytesBase64;
    const fee = await clients.rpc.getFeeForMessage(messageBase64).send();
    assert.equal(fee.value, 5_000n);
  });

  test("signature, slot and logs subscriptions notify", async () => {
    // Given subscriptions to slots, to the logs that mention a new recipient, and to a transfer's signature
    const abort = new AbortController();
    const recipient = await generateKeyPairSigner();
    const { transaction } = await signedTransfer(recipient.address, LAMPORTS_PER_SOL);
    const signature = getSignatureFromTransaction(transaction);
    const slots = await clients.rpcSubscriptions.slotNotifications().subscribe({ abortSignal: abort.signal });
    const logs = await clients.rpcSubscriptions
      .logsNotifications({ mentions: [recipient.address] }, { commitment: "confirmed" })
      .subscribe({ abortSignal: abort.signal });
    const statuses = await clients.rpcSubscriptions
      .signatureNotifications(signature, { commitment: "finalized" })
      .subscribe({ abortSignal: abort.signal });

    // (kit delivers only what arrives once iteration has begun)
    const nextStatus = statuses[Symbol.asyncIterator]().next();
    const nextLogs = logs[Symbol.asyncIterator]().next();

    // When slots pass and the transfer is sent
    const firstSlot = (await slots[Symbol.asyncIterator]().next()).value;
    await clients.rpc
      .sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: "base64" })
      .send();

    // Then each subscription notifies in the validator's shapes
    assert.deepEqual((await nextStatus).value?.value, { err: null });
    const logged = (await nextLogs).value;
    assert.equal(logged?.value.signature, signature);
    assert.ok(logged?.value.logs.includes("Program 11111111111111111111111111111111 success"));
    assert.equal(firstSlot?.parent, firstSlot!.slot - 1n);

    // And a subscription to an already-landed signature notifies at once
    const late = await clients.rpcSubscriptions
      .signatureNotifications(signature)
      .subscribe({ abortSignal: abort.signal });
    assert.deepEqual((await late[Symbol.asyncIterator]().next()).value?.value, { err: null });
    abort.abort();
  });

  test("account and program subscriptions notify when a transaction changes an account", async () => {
    // Given subscriptions to a new recipient's account and to the System Program's accounts
    const abort = new AbortController();
    const recipient = await generateKeyPairSigner();
    const account = await clients.rpcSubscriptions
      .accountNotifications(recipient.address, { encoding: "base64" })
      .subscribe({ abortSignal: abort.signal });
    const program = await clients.rpcSubscriptions
      .programNotifications("11111111111111111111111111111111" as Address, {
        encoding: "base64",
        filters: [{ dataSize: 0n }],
      })
      .subscribe({ abortSignal: abort.signal });
    const nextAccount = account[Symbol.asyncIterator]().next();
    const programUpdates: Address[] = [];
    const collected = (async () => {
      for await (const update of program) {
        programUpdates.push(update.value.pubkey);
        if (update.value.pubkey === recipient.address) return;
      }
    })();

    // When a transfer funds the recipient
    const { transaction } = await signedTransfer(recipient.address, 3n * LAMPORTS_PER_SOL);
    await clients.rpc
      .sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: "base64" })
      .send();

    // Then both report the recipient's new state
    const { value } = await nextAccount;
    assert.equal(value?.value.lamports, 3n * LAMPORTS_PER_SOL);
    assert.equal(value?.value.owner, "11111111111111111111111111111111");
    await collected;
    assert.ok(programUpdates.includes(payer.address));
    abort.abort();
  });

  test("accepts WebSocket subscriptions on the RPC port too", async () => {
    // Given a subscriptions client pointed at the RPC port
    const abort = new AbortController();
    const subscriptions = createSolanaRpcSubscriptions(ledger.rpcUrl.replace(/^http/, "ws"));

    // When it subscribes to slots
    const slots = await subscriptions.slotNotifications().subscribe({ abortSignal: abort.signal });

    // Then slots arrive
    const { value } = await slots[Symbol.asyncIterator]().next();
    assert.equal(typeof value?.slot, "bigint");
    abort.abort();
  });

  test("sends base58-encoded transactions too", async () => {
    // Given a transfer encoded in base58 (the sendTransaction default)
    const recipient = await generateKeyPairSigner();
    const { transaction } = await signedTransfer(recipient.address, LAMPORTS_PER_SOL);
    const { getTransactionEncoder, getBase58Decoder } = await import("@solana/kit");
    const base58 = getBase58Decoder().decode(getTransactionEncoder().encode(transaction));

    // When it is sent without an encoding
    const signature = await clients.rpc
      .sendTransaction(base58 as unknown as Base64EncodedWireTransaction)
      .send();

    // Then it lands
    assert.equal(signature, getSignatureFromTransaction(transaction));
    const [status] = (
      await clients.rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send()
    ).value;
    assert.equal(status?.err, null);
    assert.equal((await clients.rpc.getBalance(recipient.address).send()).value, lamports(LAMPORTS_PER_SOL));
  });
});
