/**
 * The ABAS program end to end over RPC: an operator registers an agent and records one of its
 * signed receipts, built with @abas/program-client and sent with @solana/kit.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  ALL_ACTION_TYPES_MASK,
  ActionType,
  buildAttestInstruction,
  buildAttestMessage,
  buildEd25519VerifyInstruction,
  buildRegisterAgentInstruction,
  decodeAgentAccount,
  decodeAttestationAccount,
  deriveAgentAddress,
  deriveAttestationAddress,
  sha256,
  signMessageWithKeyPair,
} from "@abas/program-client";
import {
  appendTransactionMessageInstructions,
  assertIsTransactionWithBlockhashLifetime,
  createTransactionMessage,
  fetchEncodedAccount,
  generateKeyPairSigner,
  getSignatureFromTransaction,
  pipe,
  sendAndConfirmTransactionFactory,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";

import {
  fundedSigner,
  kitClients,
  startLedgerProcess,
  type LedgerUnderTest,
} from "./support/ledger-under-test.js";

describe("ABAS on the ledger", () => {
  let ledger: LedgerUnderTest;
  let clients: ReturnType<typeof kitClients>;
  let operator: KeyPairSigner;

  before(async () => {
    ledger = await startLedgerProcess();
    clients = kitClients(ledger);
    operator = await fundedSigner(clients, 10n);
  });
  after(async () => await ledger.dispose());

  async function sendAndConfirm(instructions: readonly Instruction[]) {
    const { value: latest } = await clients.rpc.getLatestBlockhash().send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(operator, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const transaction = await signTransactionMessageWithSigners(message);
    assertIsTransactionWithBlockhashLifetime(transaction);
    await sendAndConfirmTransactionFactory(clients)(transaction, { commitment: "confirmed" });
    return getSignatureFromTransaction(transaction);
  }

  test("registers an agent and attests an action with the Ed25519 precompile", async () => {
    const programId = ledger.programId;
    // Given a registered agent
    const agent = await generateKeyPairSigner();
    await sendAndConfirm([
      await buildRegisterAgentInstruction({
        programId,
        operator,
        agent,
        allowedActionTypes: ALL_ACTION_TYPES_MASK,
      }),
    ]);

    // When the agent signs a receipt and the operator records it, precompile instruction first
    const storedHash = sha256(new TextEncoder().encode(JSON.stringify({ tool: "search", query: "ledger" })));
    const message = buildAttestMessage({
      programId,
      agent: agent.address,
      actionType: ActionType.ToolCall,
      privacyMode: false,
      storedHash,
    });
    const signature = await signMessageWithKeyPair(agent.keyPair, message);
    const transactionSignature = await sendAndConfirm([
      buildEd25519VerifyInstruction({ publicKey: agent.address, message, signature }),
      await buildAttestInstruction({
        programId,
        operator,
        agent: agent.address,
        actionType: ActionType.ToolCall,
        privacyMode: false,
        storedHash,
      }),
    ]);

    // Then getTransaction returns it with the program's logs and compute units (the precompile
    // runs before execution and logs nothing)
    const transaction = await clients.rpc
      .getTransaction(transactionSignature, { maxSupportedTransactionVersion: 0, encoding: "json" })
      .send();
    assert.ok(transaction?.meta);
    assert.equal(transaction.meta.err, null);
    const logs = transaction.meta.logMessages ?? [];
    assert.ok(logs.includes(`Program ${programId} invoke [1]`));
    assert.ok(logs.includes(`Program ${programId} success`));
    const consumed = logs
      .map((line) => new RegExp(`^Program ${programId} consumed (\\d+) of`).exec(line))
      .find(Boolean);
    assert.ok(consumed, "the program's compute units are logged");
    assert.ok(transaction.meta.computeUnitsConsumed! >= BigInt(consumed[1]!));
    // The fee covers the operator's signature and the one the precompile verified.
    assert.equal(transaction.meta.fee, 10_000n);
    assert.ok(
      transaction.meta.innerInstructions!.length > 0,
      "the System Program CPI is an inner instruction",
    );

    // And the attestation account holds the receipt, counted on the agent
    const attestationAddress = (await deriveAttestationAddress(programId, agent.address, storedHash)).address;
    const attestation = await fetchEncodedAccount(clients.rpc, attestationAddress);
    assert.ok(attestation.exists);
    const decoded = decodeAttestationAccount(attestation.data);
    assert.equal(decoded.signer, agent.address);
    assert.equal(decoded.slot, transaction.slot);
    assert.equal(decoded.timestamp, transaction.blockTime);
    const agentAccount = await fetchEncodedAccount(
      clients.rpc,
      (await deriveAgentAddress(programId, agent.address)).address,
    );
    assert.ok(agentAccount.exists);
    assert.equal(decodeAgentAccount(agentAccount.data).attestationCount, 1n);

    // And the attestation shows in the agent's history
    const history = await clients.rpc.getSignaturesForAddress(attestationAddress).send();
    assert.deepEqual(
      history.map((entry) => entry.signature),
      [transactionSignature],
    );
  });
});
