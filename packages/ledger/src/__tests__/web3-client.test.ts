/**
 * @solana/web3.js v1's Connection works against the ledger unchanged: its strict response
 * schemas accept every answer.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { deriveIssuerAddresses } from "@abas/program-client";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SystemProgram,
  Transaction,
  TransactionMessage,
  VersionedTransaction,
  sendAndConfirmTransaction,
  type Context,
  type Logs,
  type SignatureResult,
  type SlotInfo,
} from "@solana/web3.js";
import { getBase58Decoder } from "@solana/kit";

import { type LedgerUnderTest } from "./support/ledger-under-test.js";
import { startWeb3Ledger, type Web3Ledger } from "./support/web3-ledger.js";

describe("a @solana/web3.js Connection", () => {
  let web3: Web3Ledger;
  let ledger: LedgerUnderTest;
  let connection: Connection;
  let payer: Keypair;

  before(async () => {
    web3 = await startWeb3Ledger();
    ({ ledger, connection, payer } = web3);
  });
  after(async () => {
    await web3.stop();
  });

  test("airdrops, transfers with sendAndConfirmTransaction and reads the transaction back", async () => {
    // Given the funded payer and a new recipient
    assert.equal(await connection.getBalance(payer.publicKey), 100 * LAMPORTS_PER_SOL);
    const recipient = Keypair.generate();

    // When the payer sends 2 SOL with a legacy transaction
    const signature = await sendAndConfirmTransaction(
      connection,
      new Transaction().add(
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: recipient.publicKey,
          lamports: 2 * LAMPORTS_PER_SOL,
        }),
      ),
      [payer],
    );

    // Then the balances moved and getTransaction describes it
    assert.equal(await connection.getBalance(recipient.publicKey), 2 * LAMPORTS_PER_SOL);
    const transaction = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    assert.ok(transaction);
    assert.equal(transaction.version, "legacy");
    assert.equal(transaction.meta?.err, null);
    assert.equal(transaction.meta?.fee, 5000);
    assert.equal(transaction.meta?.postBalances[1], 2 * LAMPORTS_PER_SOL);
    assert.ok(transaction.meta?.logMessages?.includes("Program 11111111111111111111111111111111 success"));
    assert.ok((transaction.blockTime ?? 0) > 1_700_000_000);
    const parsed = await connection.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0 });
    assert.equal(parsed?.transaction.message.accountKeys[0]?.pubkey.toBase58(), payer.publicKey.toBase58());
  });

  test("sends a v0 transaction and pages getSignaturesForAddress", async () => {
    // Given three v0 transfers to one recipient
    const recipient = Keypair.generate();
    const signatures: string[] = [];
    for (let i = 1; i <= 3; i += 1) {
      const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
      const message = new TransactionMessage({
        payerKey: payer.publicKey,
        recentBlockhash: blockhash,
        instructions: [
          SystemProgram.transfer({
            fromPubkey: payer.publicKey,
            toPubkey: recipient.publicKey,
            lamports: i * LAMPORTS_PER_SOL,
          }),
        ],
      }).compileToV0Message();
      const transaction = new VersionedTransaction(message);
      transaction.sign([payer]);
      const signature = await connection.sendTransaction(transaction);
      await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight });
      signatures.push(signature);
    }

    // When the history is read in pages
    const all = await connection.getSignaturesForAddress(recipient.publicKey);
    const limited = await connection.getSignaturesForAddress(recipient.publicKey, { limit: 1 });
    const older = await connection.getSignaturesForAddress(recipient.publicKey, {
      before: signatures[2],
      until: signatures[0],
    });

    // Then it is newest first
    assert.deepEqual(
      all.map((s) => s.signature),
      [...signatures].reverse(),
    );
    assert.deepEqual(
      limited.map((s) => s.signature),
      [signatures[2]],
    );
    assert.deepEqual(
      older.map((s) => s.signature),
      [signatures[1]],
    );
    const v0 = await connection.getTransaction(signatures[0]!, { maxSupportedTransactionVersion: 0 });
    assert.equal(v0?.version, 0);
  });

  test("reads the ABAS accounts with getProgramAccounts filters and getAccountInfo", async () => {
    // Given the Credential and Schemas genesis created
    const programId = new PublicKey(ledger.programId);
    const issuer = await deriveIssuerAddresses(ledger.programId);

    // When they are filtered by first byte and size
    const schemas = await connection.getProgramAccounts(programId, {
      filters: [{ memcmp: { offset: 0, bytes: getBase58Decoder().decode(Uint8Array.of(1)) } }],
    });
    const credential = await connection.getProgramAccounts(programId, { filters: [{ dataSize: 45 }] });

    // Then the two Schemas and the one Credential come back
    assert.deepEqual(
      schemas.map((a) => a.pubkey.toBase58()).sort(),
      [issuer.attestationSchema.address, issuer.batchSchema.address].sort(),
    );
    assert.deepEqual(
      credential.map((a) => a.pubkey.toBase58()),
      [issuer.credential.address],
    );
    const info = await connection.getAccountInfo(new PublicKey(issuer.credential.address));
    assert.equal(info?.owner.toBase58(), ledger.programId);
    assert.equal(info?.data.subarray(37, 41).toString(), "ABAS");
    assert.equal(await connection.getAccountInfo(Keypair.generate().publicKey), null);
  });

  test("simulates, prices a message and reports a preflight failure with its logs", async () => {
    // Given a transfer of more than the payer holds
    const { blockhash } = await connection.getLatestBlockhash();
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: blockhash,
      instructions: [
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: Keypair.generate().publicKey,
          lamports: 10_000 * LAMPORTS_PER_SOL,
        }),
      ],
    }).compileToV0Message();
    const transaction = new VersionedTransaction(message);
    transaction.sign([payer]);

    // When it is simulated, priced and sent
    const simulation = await connection.simulateTransaction(transaction);
    const fee = await connection.getFeeForMessage(message);
    const sending = connection.sendTransaction(transaction);

    // Then the simulation shows the failure, the fee is one signature's, and preflight refuses it
    assert.deepEqual(simulation.value.err, { InstructionError: [0, { Custom: 1 }] });
    assert.ok(simulation.value.logs?.some((line) => line.includes("insufficient lamports")));
    assert.equal(fee.value, 5000);
    await assert.rejects(sending, (error: Error & { logs?: string[] }) => {
      assert.match(
        error.message,
        /Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1/,
      );
      assert.ok(error.logs?.some((line) => line.includes("insufficient lamports")));
      return true;
    });
  });

  test("onSignature, onSlotChange and onLogs notify", async () => {
    // Given a signed transfer and subscriptions to its signature, to slots and to all logs
    const recipient = Keypair.generate();
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    const transaction = new Transaction({ feePayer: payer.publicKey, blockhash, lastValidBlockHeight }).add(
      SystemProgram.transfer({
        fromPubkey: payer.publicKey,
        toPubkey: recipient.publicKey,
        lamports: LAMPORTS_PER_SOL,
      }),
    );
    transaction.sign(payer);
    const signature = getBase58Decoder().decode(transaction.signature!);
    const signatureResult = new Promise<SignatureResult>((resolve) => {
      connection.onSignature(signature, (result) => resolve(result), "confirmed");
    });
    let slotListener = 0;
    const slot = new Promise<SlotInfo>((resolve) => {
      slotListener = connection.onSlotChange((info) => resolve(info));
    });
    let logsListener = 0;
    const logs = new Promise<[Logs, Context]>((resolve) => {
      logsListener = connection.onLogs(recipient.publicKey, (value, context) => resolve([value, context]));
    });
    // (web3.js subscribes over the socket asynchronously)
    await slot;

    // When the transfer is sent
    await connection.sendRawTransaction(transaction.serialize());

    // Then every subscription is told
    assert.deepEqual(await signatureResult, { err: null });
    const [logged, context] = await logs;
    assert.equal(logged.signature, signature);
    assert.ok(context.slot > 0);
    const info = await slot;
    assert.equal(info.parent, info.slot - 1);
    await connection.removeSlotChangeListener(slotListener);
    await connection.removeOnLogsListener(logsListener);
  });
});
