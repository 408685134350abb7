import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ABAS_PROGRAM__AGENT_ALREADY_REGISTERED,
  ABAS_PROGRAM__INVALID_PDA,
  ABAS_PROGRAM__INVALID_POLICY,
  ABAS_PROGRAM__INVALID_SYSTEM_PROGRAM,
  ABAS_PROGRAM__MISSING_REQUIRED_SIGNATURE,
} from "@abas/errors";
import {
  actionTypesMask,
  ActionType,
  AgentStatus,
  buildRegisterAgentInstruction,
  decodeAgentAccount,
  deriveAgentAddress,
  encodeRegisterAgentInstructionData,
} from "@abas/program-client";
import { AccountRole, getAddressEncoder } from "@solana/kit";

import {
  advanceLedgerTime,
  balanceOf,
  createAgent,
  createOperator,
  createTestLedger,
  expectProgramError,
  expectSuccess,
  getAccount,
  readAccount,
  registerAgent,
  send,
  withAccount,
  withData,
  START_UNIX_TIMESTAMP,
} from "./harness.js";

test("register_agent creates the Agent account, timestamped by the ledger's clock", async () => {
  // Given an operator, an agent key, and a ledger whose clock has moved on
  const ledger = await createTestLedger();
  const operator = await createOperator(ledger);
  const agent = await createAgent();
  const { unixTimestamp: registeredAt, slot: registeredSlot } = advanceLedgerTime(ledger, {
    seconds: 3_600n,
    slots: 9_000n,
  });
  assert.notEqual(registeredAt, START_UNIX_TIMESTAMP);
  const allowedActionTypes = actionTypesMask([ActionType.ToolCall, ActionType.Decision]);
  const operatorBefore = balanceOf(ledger, operator.address);

  // When both sign register_agent
  const instruction = await buildRegisterAgentInstruction({
    programId: ledger.programId,
    operator,
    agent,
    allowedActionTypes,
  });
  expectSuccess(await send(ledger, [instruction]));

  // Then the Agent account at ["agent", agent] holds exactly the documented fields
  const { address, bump } = await deriveAgentAddress(ledger.programId, agent.address);
  const account = readAccount(ledger, address);
  assert.equal(account.owner, ledger.programId);
  assert.equal(account.data.length, 128);
  assert.deepEqual([...account.data.subarray(0, 8)], [16, 1, bump, 0, 0b0110, 0, 0, 0]);
  assert.deepEqual(account.data.subarray(8, 40), getAddressEncoder().encode(operator.address));
  assert.deepEqual(account.data.subarray(40, 72), getAddressEncoder().encode(agent.address));
  assert.deepEqual(decodeAgentAccount(account.data), {
    layoutVersion: 1,
    bump,
    status: AgentStatus.Active,
    allowedActionTypes,
    operator: operator.address,
    agent: agent.address,
    registeredAt,
    registeredSlot,
    updatedAt: registeredAt,
    attestationCount: 0n,
    batchCount: 0n,
    batchItemCount: 0n,
    lastAttestedAt: 0n,
  });

  // And the operator paid its rent (the ledger's payer paid the fee)
  const rent = ledger.svm.minimumBalanceForRentExemption(128n);
  assert.equal(account.lamports, rent);
  assert.equal(operatorBefore - balanceOf(ledger, operator.address), rent);
});

test("register_agent without the agent's signature fails with MissingRequiredSignature", async () => {
  // Given a register_agent instruction where the agent is listed but does not sign
  const ledger = await createTestLedger();
  const operator = await createOperator(ledger);
  const agent = await createAgent();
  const instruction = await buildRegisterAgentInstruction({
    programId: ledger.programId,
    operator,
    agent,
    allowedActionTypes: 0b1111,
  });
  const unsigned = withAccount(instruction, 1, { address: agent.address, role: AccountRole.READONLY });

  // When the operator sends it alone
  const outcome = await send(ledger, [unsigned]);

  // Then it fails with MissingRequiredSignature and no agent account exists
  expectProgramError(outcome, ABAS_PROGRAM__MISSING_REQUIRED_SIGNATURE);
  const { address } = await deriveAgentAddress(ledger.programId, agent.address);
  assert.equal(getAccount(ledger, address), undefined);
});

test("registering an agent key again, by another operator, fails with AgentAlreadyRegistered", async () => {
  // Given an agent registered by its operator
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger, { allowedActionTypes: 0b0001 });
  const before = readAccount(ledger, registered.agentAccount);

  // When another operator registers the same agent key (with the agent's signature)
  const intruder = await createOperator(ledger);
  const instruction = await buildRegisterAgentInstruction({
    programId: ledger.programId,
    operator: intruder,
    agent: registered.agent,
    allowedActionTypes: 0b1111,
  });
  const outcome = await send(ledger, [instruction]);

  // Then it fails with AgentAlreadyRegistered and the agent keeps its operator and policy
  expectProgramError(outcome, ABAS_PROGRAM__AGENT_ALREADY_REGISTERED);
  assert.deepEqual(readAccount(ledger, registered.agentAccount), before);
});

for (const policy of [0, 16]) {
  test(`register_agent with policy ${policy} fails with InvalidPolicy`, async () => {
    // Given a register_agent instruction whose allowed action types byte is ${policy}
    const ledger = await createTestLedger();
    const operator = await createOperator(ledger);
    const agent = await createAgent();
    const { bump } = await deriveAgentAddress(ledger.programId, agent.address);
    const instruction = await buildRegisterAgentInstruction({
      programId: ledger.programId,
      operator,
      agent,
      allowedActionTypes: 0b1111,
    });
    const data = encodeRegisterAgentInstructionData({ agentBump: bump, allowedActionTypes: policy });

    // When it is sent
    const outcome = await send(ledger, [withData(instruction, data)]);

    // Then it fails with InvalidPolicy
    expectProgramError(outcome, ABAS_PROGRAM__INVALID_POLICY);
  });
}

test("register_agent with a bump that is not the PDA's fails with InvalidPda", async () => {
  // Given the right agent account but another bump in the data
  const ledger = await createTestLedger();
  const operator = await createOperator(ledger);
  const agent = await createAgent();
  const { address, bump } = await deriveAgentAddress(ledger.programId, agent.address);
  const instruction = await buildRegisterAgentInstruction({
    programId: ledger.programId,
    operator,
    agent,
    allowedActionTypes: 0b1111,
  });
  const data = encodeRegisterAgentInstructionData({
    agentBump: (bump + 255) % 256,
    allowedActionTypes: 0b1111,
  });

  // When it is sent
  const outcome = await send(ledger, [withData(instruction, data)]);

  // Then it fails with InvalidPda and nothing is created
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_PDA);
  assert.equal(getAccount(ledger, address), undefined);
});

test("register_agent with an agent account that is not the agent's PDA fails with InvalidPda", async () => {
  // Given the agent account of another agent key
  const ledger = await createTestLedger();
  const operator = await createOperator(ledger);
  const agent = await createAgent();
  const other = await deriveAgentAddress(ledger.programId, (await createAgent()).address);
  const instruction = await buildRegisterAgentInstruction({
    programId: ledger.programId,
    operator,
    agent,
    allowedActionTypes: 0b1111,
  });

  // When it is sent
  const outcome = await send(ledger, [
    withAccount(instruction, 2, { address: other.address, role: AccountRole.WRITABLE }),
  ]);

  // Then it fails with InvalidPda
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_PDA);
});

test("register_agent with another account as system program fails with InvalidSystemProgram", async () => {
  // Given a register_agent instruction whose system program is some other account
  const ledger = await createTestLedger();
  const operator = await createOperator(ledger);
  const agent = await createAgent();
  const instruction = await buildRegisterAgentInstruction({
    programId: ledger.programId,
    operator,
    agent,
    allowedActionTypes: 0b1111,
  });
  const impostor = (await createAgent()).address;

  // When it is sent
  const outcome = await send(ledger, [
    withAccount(instruction, 3, { address: impostor, role: AccountRole.READONLY }),
  ]);

  // Then it fails with InvalidSystemProgram
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_SYSTEM_PROGRAM);
});
