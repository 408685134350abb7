/**
 * Registering and updating agents on the local ledger, and the named error of each way an
 * operation can be refused by the program or the runtime.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import {
  ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED,
  ABAS_PROGRAM__AGENT_ALREADY_REGISTERED,
  ABAS_PROGRAM__AGENT_REVOKED,
  ABAS_PROGRAM__AGENT_SUSPENDED,
  ABAS_PROGRAM__NOT_AGENT_OPERATOR,
  ABAS_RUNTIME__AGENT_NOT_REGISTERED,
  ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE,
  ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_NEW_ACCOUNT,
  isAbasError,
  type AbasErrorCode,
} from "@abas/errors";
import { AGENT_ACCOUNT_SIZE } from "@abas/program-client";
import { Connection, PublicKey } from "@solana/web3.js";

import { AttestationClient } from "../client.js";
import { TransactionFailure } from "../transaction-errors.js";
import { generateSecretKey } from "../keypair.js";
import { addressOf, fundedSecretKey, startTestLedger, type TestLedger } from "./support/local-ledger.js";

function isCode(code: AbasErrorCode) {
  return (error: unknown): true => {
    assert.ok(isAbasError(error), `expected AbasError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return true;
  };
}

describe("agents and errors on the local ledger", () => {
  let ledger: TestLedger;
  let connection: Connection;
  let operatorKeypair: Uint8Array;
  let client: AttestationClient;
  let hashCounter = 0;
  const nextHash = () => AttestationClient.hashAction(`action ${hashCounter++}`);

  before(async () => {
    ledger = await startTestLedger();
    connection = new Connection(ledger.rpcUrl, "confirmed");
    operatorKeypair = await fundedSecretKey(ledger);
    client = new AttestationClient({
      rpcUrl: ledger.rpcUrl,
      agentKeypair: generateSecretKey(),
      programId: ledger.programId,
    });
  });
  after(async () => await ledger?.stop());

  it("names an agent that is not registered yet", async () => {
    await assert.rejects(
      async () => client.attest({ operatorKeypair, actionHash: await nextHash(), actionType: "ToolCall" }),
      isCode(ABAS_RUNTIME__AGENT_NOT_REGISTERED),
    );
    assert.equal(await client.getAgent(), null);
  });

  it("registers the agent with a policy", async () => {
    // When the operator registers the agent for two action types
    const registered = await client.registerAgent({
      operatorKeypair,
      allowedActionTypes: ["ToolCall", "Decision"],
    });
    // Then the agent account holds them, the operator, and the active status
    assert.deepEqual(registered.allowedActionTypes, ["ToolCall", "Decision"]);
    const agent = await client.getAgent();
    assert.equal(agent?.address, registered.agentAccountAddress);
    assert.equal(agent?.operator, await addressOf(operatorKeypair));
    assert.equal(agent?.status, "active");
    assert.deepEqual(agent?.allowedActionTypes, ["ToolCall", "Decision"]);
    assert.equal(agent?.attestationCount, 0);
    assert.equal(agent?.lastAttestedAt, null);
    // And another client library sees the program's 128-byte account
    const account = await connection.getAccountInfo(
      new PublicKey(registered.agentAccountAddress),
      "confirmed",
    );
    assert.equal(account?.owner.toBase58(), ledger.programId);
    assert.equal(account?.data.length, AGENT_ACCOUNT_SIZE);
  });

  it("refuses a second registration of the same agent key, whoever asks", async () => {
    const otherOperator = await fundedSecretKey(ledger);
    await assert.rejects(
      () => client.registerAgent({ operatorKeypair: otherOperator }),
      isCode(ABAS_PROGRAM__AGENT_ALREADY_REGISTERED),
    );
  });

  it("refuses an action type outside the policy", async () => {
    await assert.rejects(
      async () => client.attest({ operatorKeypair, actionHash: await nextHash(), actionType: "Transaction" }),
      isCode(ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED),
    );
    await assert.rejects(
      async () =>
        client.batchAttest({
          operatorKeypair,
          attestations: [
            { actionHash: await nextHash(), actionType: "ToolCall" },
            { actionHash: await nextHash(), actionType: "ModelInvocation" },
          ],
        }),
      isCode(ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED),
    );
  });

  it("refuses another operator, for attesting and for updating", async () => {
    const intruder = await fundedSecretKey(ledger);
    await assert.rejects(
      async () =>
        client.attest({ operatorKeypair: intruder, actionHash: await nextHash(), actionType: "ToolCall" }),
      isCode(ABAS_PROGRAM__NOT_AGENT_OPERATOR),
    );
    await assert.rejects(
      () => client.updateAgent({ operatorKeypair: intruder, status: "suspended" }),
      isCode(ABAS_PROGRAM__NOT_AGENT_OPERATOR),
    );
  });

  it("refuses a suspended agent with the program's error, and its logs as the cause", async () => {
    // Given a suspended agent
    const updated = await client.updateAgent({ operatorKeypair, status: "suspended" });
    assert.equal(updated.status, "suspended");
    // The policy was kept, since none was given
    assert.deepEqual(updated.allowedActionTypes, ["ToolCall", "Decision"]);
    // Then attesting fails by name, before any fee is spent
    const balanceBefore = (await ledger.rpc.getBalance(await addressOf(operatorKeypair)).send()).value;
    await assert.rejects(
      async () => client.attest({ operatorKeypair, actionHash: await nextHash(), actionType: "ToolCall" }),
      (error: unknown) => {
        isCode(ABAS_PROGRAM__AGENT_SUSPENDED)(error);
        assert.ok(error instanceof Error && error.cause instanceof TransactionFailure);
        assert.ok(
          error.cause.logs.some((line) => line.includes(ledger.programId)),
          error.cause.logs.join("\n"),
        );
        return true;
      },
    );
    assert.equal((await ledger.rpc.getBalance(await addressOf(operatorKeypair)).send()).value, balanceBefore);
  });

  it("reactivates the agent with a new policy", async () => {
    const updated = await client.updateAgent({
      operatorKeypair,
      status: "active",
      allowedActionTypes: ["Transaction"],
    });
    assert.deepEqual(updated.allowedActionTypes, ["Transaction"]);
    const receipt = await client.attest({
      operatorKeypair,
      actionHash: await nextHash(),
      actionType: "Transaction",
    });
    assert.equal((await client.verifyReceipt(receipt)).valid, true);
    await assert.rejects(
      async () => client.attest({ operatorKeypair, actionHash: await nextHash(), actionType: "ToolCall" }),
      isCode(ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED),
    );
  });

  it("makes revocation final", async () => {
    await client.updateAgent({ operatorKeypair, status: "revoked" });
    assert.equal((await client.getAgent())?.status, "revoked");
    await assert.rejects(
      async () => client.attest({ operatorKeypair, actionHash: await nextHash(), actionType: "Transaction" }),
      isCode(ABAS_PROGRAM__AGENT_REVOKED),
    );
    await assert.rejects(
      () => client.updateAgent({ operatorKeypair, status: "active" }),
      isCode(ABAS_PROGRAM__AGENT_REVOKED),
    );
  });

  it("names an operator that was never funded", async () => {
    const unfunded = generateSecretKey();
    const freshClient = new AttestationClient({
      rpcUrl: ledger.rpcUrl,
      agentKeypair: generateSecretKey(),
      programId: ledger.programId,
    });
    await assert.rejects(
      () => freshClient.registerAgent({ operatorKeypair: unfunded }),
      isCode(ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE),
    );
  });

  it("names an operator that can pay the fee but not the rent of the new account", async () => {
    // Given an operator with 0.001 SOL: rent-exempt itself and enough for fees, but not enough
    // for the rent of a 128-byte agent account (about 0.0018 SOL)
    const poorOperator = await fundedSecretKey(ledger, 1_000_000n);
    const freshClient = new AttestationClient({
      rpcUrl: ledger.rpcUrl,
      agentKeypair: generateSecretKey(),
      programId: ledger.programId,
    });
    await assert.rejects(
      () => freshClient.registerAgent({ operatorKeypair: poorOperator }),
      isCode(ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_NEW_ACCOUNT),
    );
  });
});
