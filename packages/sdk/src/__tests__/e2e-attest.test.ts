/**
 * Single attestations against the local ledger, started as its own process and reached over HTTP.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { ABAS_PROGRAM__DUPLICATE_ATTESTATION, isAbasError } from "@abas/errors";
import { ATTESTATION_ACCOUNT_SIZE, computeCommitment } from "@abas/program-client";
import { createKeyPairSignerFromBytes } from "@solana/kit";
import { Connection, PublicKey } from "@solana/web3.js";

import { AttestationClient } from "../client.js";
import type { AttestationReceipt } from "../receipts.js";
import { verifyReceipt, type ReceiptCheckName, type ReceiptVerification } from "../verify-receipt.js";
import { generateSecretKey } from "../keypair.js";
import { fundedSecretKey, startTestLedger, type TestLedger } from "./support/local-ledger.js";
import { buildOfflineReceipt, flipHex } from "./support/offline-receipts.js";

function failedChecks(verification: ReceiptVerification): ReceiptCheckName[] {
  return (Object.entries(verification.checks) as [ReceiptCheckName, { ok: boolean }][])
    .filter(([, check]) => !check.ok)
    .map(([name]) => name);
}

describe("attest on the local ledger", () => {
  let ledger: TestLedger;
  let connection: Connection;
  let client: AttestationClient;
  let agentSecretKey: Uint8Array;
  let operatorKeypair: Uint8Array;
  let normalReceipt: AttestationReceipt;
  let privateReceipt: AttestationReceipt;
  const payload = AttestationClient.canonicalize({
    tool: "flights.search",
    arguments: { from: "LIS", to: "SFO", date: "2026-03-14" },
  });

  before(async () => {
    ledger = await startTestLedger();
    connection = new Connection(ledger.rpcUrl, "confirmed");
    agentSecretKey = generateSecretKey();
    operatorKeypair = await fundedSecretKey(ledger);
    client = new AttestationClient({
      rpcUrl: ledger.rpcUrl,
      agentKeypair: agentSecretKey,
      programId: ledger.programId,
    });
    await client.registerAgent({ operatorKeypair });
  });
  after(async () => await ledger?.stop());

  it("records an action and returns its receipt", async () => {
    // Given the hash of a payload
    const actionHash = await AttestationClient.hashAction(payload);
    // When the agent attests it
    normalReceipt = await client.attest({ operatorKeypair, actionHash, actionType: "ToolCall" });
    // Then the receipt names the transaction, the account and what was stored
    assert.match(normalReceipt.txSignature, /^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    assert.equal(
      normalReceipt.explorerUrl,
      `https://explorer.solana.com/tx/${normalReceipt.txSignature}?cluster=custom&customUrl=${encodeURIComponent(ledger.rpcUrl)}`,
    );
    assert.equal(normalReceipt.programId, ledger.programId);
    assert.equal(normalReceipt.agent, client.agentAddress);
    assert.equal(normalReceipt.operator, (await createKeyPairSignerFromBytes(operatorKeypair)).address);
    assert.equal(normalReceipt.actionType, "ToolCall");
    assert.equal(normalReceipt.privacyMode, false);
    assert.equal(normalReceipt.actionHash, actionHash);
    assert.equal(normalReceipt.storedHash, actionHash);
    assert.equal("salt" in normalReceipt, false);
    assert.ok(normalReceipt.slot > 0);
    assert.ok(Math.abs(normalReceipt.timestamp - Date.now() / 1000) < 600, "the ledger's clock is about now");
  });

  it("is seen by @solana/web3.js: a successful transaction of our program, a 331-byte account it owns", async () => {
    // When another client library reads the ledger
    const transaction = await connection.getTransaction(normalReceipt.txSignature, {
      maxSupportedTransactionVersion: 0,
      commitment: "confirmed",
    });
    // Then the transaction succeeded and our program ran in it
    assert.ok(transaction, "transaction not found");
    assert.equal(transaction.meta?.err, null);
    const logs = transaction.meta?.logMessages ?? [];
    assert.ok(logs.includes(`Program ${ledger.programId} invoke [1]`), logs.join("\n"));
    assert.ok(logs.includes(`Program ${ledger.programId} success`), logs.join("\n"));
    assert.equal(transaction.slot, normalReceipt.slot);
    // And its compute budget came from the simulation, not the 200 000-unit default
    const consumed = transaction.meta?.computeUnitsConsumed ?? 0;
    assert.ok(consumed > 0 && consumed < 200_000, `consumed ${consumed}`);
    // And the attestation account is the program's, at the size of the SAS layout
    const account = await connection.getAccountInfo(
      new PublicKey(normalReceipt.attestationAddress),
      "confirmed",
    );
    assert.ok(account);
    assert.equal(account.owner.toBase58(), ledger.programId);
    assert.equal(account.data.length, ATTESTATION_ACCOUNT_SIZE);
  });

  it("records a privacy-mode action as a salted commitment, never the hash", async () => {
    const actionHash = await AttestationClient.hashAction(`${payload} private`);
    privateReceipt = await client.attest({
      operatorKeypair,
      actionHash,
      actionType: "Decision",
      privacyMode: true,
    });
    assert.equal(privateReceipt.privacyMode, true);
    assert.match(privateReceipt.salt ?? "", /^[0-9a-f]{64}$/);
    assert.notEqual(privateReceipt.storedHash, actionHash);
    // The action hash appears nowhere in the account
    const account = await connection.getAccountInfo(
      new PublicKey(privateReceipt.attestationAddress),
      "confirmed",
    );
    assert.ok(account);
    assert.equal(Buffer.from(account.data).toString("hex").includes(actionHash), false);
  });

  it("verifies both receipts, offline and against the ledger", async () => {
    for (const receipt of [normalReceipt, privateReceipt]) {
      // A receipt kept as JSON verifies as well
      const verification = await client.verifyReceipt(
        JSON.parse(JSON.stringify(receipt)) as AttestationReceipt,
      );
      assert.equal(verification.valid, true, JSON.stringify(verification.checks, null, 1));
      assert.deepEqual(Object.keys(verification.checks).sort(), [
        "account",
        "accountFields",
        "address",
        "agentSignature",
        "format",
        "program",
        "storedHash",
        "transaction",
      ]);
      assert.equal(verification.onChain.transaction?.succeeded, true);
      const account = verification.onChain.account;
      assert.ok(account !== null && "storedHash" in account);
      assert.equal(account.storedHash, receipt.storedHash);
    }
  });

  it("verifies a receipt without any key, as an auditor does", async () => {
    const verification = await verifyReceipt(privateReceipt, { rpcUrl: ledger.rpcUrl });
    assert.equal(verification.valid, true, JSON.stringify(verification.checks));
  });

  it("fails the ledger check that each tampered field breaks", async () => {
    const other = await client.attest({
      operatorKeypair,
      actionHash: await AttestationClient.hashAction("another action"),
      actionType: "Transaction",
    });
    const cases: [what: string, receipt: AttestationReceipt, failed: ReceiptCheckName[]][] = [
      // Not signed, so only the ledger can tell: the account says otherwise
      ["timestamp", { ...normalReceipt, timestamp: normalReceipt.timestamp + 1 }, ["accountFields"]],
      ["operator", { ...normalReceipt, operator: client.agentAddress }, ["accountFields"]],
      ["slot", { ...normalReceipt, slot: normalReceipt.slot + 1 }, ["accountFields", "transaction"]],
      // Another real transaction of the program, but not the one that wrote this account
      ["txSignature", { ...normalReceipt, txSignature: other.txSignature }, ["transaction"]],
      // Offline checks fail too when the stored hash or the salt changes
      ["salt", { ...privateReceipt, salt: flipHex(privateReceipt.salt!) }, ["storedHash"]],
      [
        "storedHash",
        {
          ...normalReceipt,
          actionHash: flipHex(normalReceipt.actionHash),
          storedHash: flipHex(normalReceipt.storedHash),
        },
        ["agentSignature", "address", "accountFields"],
      ],
    ];
    for (const [what, receipt, failed] of cases) {
      const verification = await client.verifyReceipt(receipt);
      assert.equal(verification.valid, false, what);
      assert.deepEqual(failedChecks(verification), failed, `${what}: ${JSON.stringify(verification.checks)}`);
    }
  });

  it("rejects a well-signed receipt of an action that was never recorded", async () => {
    // Given a receipt that the agent signed but no transaction recorded
    const agent = await createKeyPairSignerFromBytes(agentSecretKey);
    const unrecorded = await buildOfflineReceipt(agent);
    const verification = await client.verifyReceipt({ ...unrecorded, programId: ledger.programId });
    // Then the offline checks pass and the ledger's do not
    assert.deepEqual(failedChecks(verification), ["account", "accountFields", "transaction"]);
    assert.equal(verification.onChain.account, null);
    assert.equal(verification.onChain.transaction, null);
  });

  it("finds an attestation by its action hash, and a private one only with its salt", async () => {
    // By hash: the normal one
    const found = await client.findAttestation({ actionHash: normalReceipt.actionHash });
    assert.equal(found?.address, normalReceipt.attestationAddress);
    assert.equal(found?.actionType, "ToolCall");
    assert.equal(found?.agentSignature, normalReceipt.agentSignature);
    assert.equal(found?.timestamp, normalReceipt.timestamp);
    // The private one is invisible by hash alone, found with the salt, and by its stored hash
    assert.equal(await client.findAttestation({ actionHash: privateReceipt.actionHash }), null);
    const withSalt = await client.findAttestation({
      actionHash: privateReceipt.actionHash,
      salt: privateReceipt.salt!,
    });
    assert.equal(withSalt?.address, privateReceipt.attestationAddress);
    assert.equal(withSalt?.privacyMode, true);
    const byStoredHash = await client.findAttestation({ storedHash: privateReceipt.storedHash });
    assert.equal(byStoredHash?.address, privateReceipt.attestationAddress);
    // A commitment is not an action hash: the private one is not found by its commitment as one
    assert.equal(await client.findAttestation({ actionHash: privateReceipt.storedHash }), null);
    // And a normal-mode attestation of a hash that equals a commitment is not found with that salt
    const salt = "5a".repeat(32);
    const hidden = await AttestationClient.hashAction("hidden behind a commitment");
    const commitment = Buffer.from(
      computeCommitment(Buffer.from(salt, "hex"), Buffer.from(hidden, "hex")),
    ).toString("hex");
    await client.attest({ operatorKeypair, actionHash: commitment, actionType: "ToolCall" });
    assert.equal((await client.findAttestation({ actionHash: commitment }))?.privacyMode, false);
    assert.equal(await client.findAttestation({ actionHash: hidden, salt }), null);
    // Unknown hashes, and other agents' attestations, are not found
    assert.equal(await client.findAttestation({ actionHash: "0".repeat(64) }), null);
    assert.equal(
      await client.findAttestation({ actionHash: normalReceipt.actionHash, agent: normalReceipt.operator }),
      null,
    );
  });

  it("counts the agent's attestations", async () => {
    const agent = await client.getAgent();
    assert.equal(agent?.status, "active");
    assert.equal(agent?.attestationCount, 4);
    assert.ok((agent?.lastAttestedAt ?? 0) > 0);
  });

  it("refuses to attest the same hash twice, by name", async () => {
    await assert.rejects(
      () => client.attest({ operatorKeypair, actionHash: normalReceipt.actionHash, actionType: "ToolCall" }),
      (error: unknown) => isAbasError(error, ABAS_PROGRAM__DUPLICATE_ATTESTATION),
    );
  });

  it("pays a priority fee when configured", async () => {
    // Given a client with a priority fee
    const payingClient = new AttestationClient({
      rpcUrl: ledger.rpcUrl,
      agentKeypair: agentSecretKey,
      programId: ledger.programId,
      priorityFeeMicroLamports: 1_000_000,
    });
    const receipt = await payingClient.attest({
      operatorKeypair,
      actionHash: await AttestationClient.hashAction("with a priority fee"),
      actionType: "ModelInvocation",
    });
    // Then the fee is above the 5 000 lamports of the signature alone
    const transaction = await connection.getTransaction(receipt.txSignature, {
      maxSupportedTransactionVersion: 0,
      commitment: "confirmed",
    });
    assert.ok((transaction?.meta?.fee ?? 0) > 5_000, `fee ${transaction?.meta?.fee}`);
  });
});
