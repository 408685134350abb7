import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ABAS_PROGRAM__ACCOUNT_NOT_WRITABLE,
  ABAS_PROGRAM__AGENT_ALREADY_REGISTERED,
  ABAS_PROGRAM__AGENT_REVOKED,
  ABAS_PROGRAM__INVALID_ACCOUNT_DATA,
  ABAS_PROGRAM__INVALID_ACCOUNT_OWNER,
  ABAS_PROGRAM__INVALID_POLICY,
  ABAS_PROGRAM__INVALID_STATUS,
  ABAS_PROGRAM__MISSING_REQUIRED_SIGNATURE,
  ABAS_PROGRAM__NOT_AGENT_OPERATOR,
} from "@abas/errors";
import {
  AgentStatus,
  buildRegisterAgentInstruction,
  buildUpdateAgentInstruction,
  decodeAgentAccount,
  encodeUpdateAgentInstructionData,
} from "@abas/program-client";
import { AccountRole, generateKeyPairSigner } from "@solana/kit";

import {
  advanceLedgerTime,
  createOperator,
  createTestLedger,
  expectProgramError,
  expectSuccess,
  readAccount,
  registerAgent,
  send,
  setAccount,
  updateAgent,
  withAccount,
  withData,
  type RegisteredAgent,
  type TestLedger,
} from "./harness.js";

async function buildUpdate(
  ledger: TestLedger,
  registered: RegisteredAgent,
  status: AgentStatus = AgentStatus.Suspended,
  allowedActionTypes = 0b0011,
) {
  return await buildUpdateAgentInstruction({
    programId: ledger.programId,
    operator: registered.operator,
    agent: registered.agent.address,
    status,
    allowedActionTypes,
  });
}

test("update_agent changes status and policy and stamps updated_at", async () => {
  // Given an active agent allowed every action type, and time passing
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger, { allowedActionTypes: 0b1111 });
  const before = decodeAgentAccount(readAccount(ledger, registered.agentAccount).data);
  const later = advanceLedgerTime(ledger, { seconds: 86_400n, slots: 216_000n });

  // When its operator suspends it and narrows its policy
  expectSuccess(await send(ledger, [await buildUpdate(ledger, registered, AgentStatus.Suspended, 0b0100)]));

  // Then only status, policy and updated_at change
  const after = decodeAgentAccount(readAccount(ledger, registered.agentAccount).data);
  assert.deepEqual(after, {
    ...before,
    status: AgentStatus.Suspended,
    allowedActionTypes: 0b0100,
    updatedAt: later.unixTimestamp,
  });

  // And the operator can make it active again
  expectSuccess(await send(ledger, [await buildUpdate(ledger, registered, AgentStatus.Active, 0b1000)]));
  const reactivated = decodeAgentAccount(readAccount(ledger, registered.agentAccount).data);
  assert.equal(reactivated.status, AgentStatus.Active);
  assert.equal(reactivated.allowedActionTypes, 0b1000);
});

test("update_agent by another operator fails with NotAgentOperator", async () => {
  // Given an agent and an operator that is not its operator
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger);
  const before = readAccount(ledger, registered.agentAccount);
  const stranger = await createOperator(ledger);

  // When the stranger revokes the agent
  const instruction = await buildUpdate(ledger, { ...registered, operator: stranger }, AgentStatus.Revoked);
  const outcome = await send(ledger, [instruction]);

  // Then it fails with NotAgentOperator and the agent is unchanged
  expectProgramError(outcome, ABAS_PROGRAM__NOT_AGENT_OPERATOR);
  assert.deepEqual(readAccount(ledger, registered.agentAccount), before);
});

test("update_agent with status 3 fails with InvalidStatus", async () => {
  // Given an agent
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger);

  // When its operator sets status 3
  const instruction = withData(
    await buildUpdate(ledger, registered),
    encodeUpdateAgentInstructionData({ status: 3, allowedActionTypes: 0b1111 }),
  );
  const outcome = await send(ledger, [instruction]);

  // Then it fails with InvalidStatus
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_STATUS);
});

for (const policy of [0, 16]) {
  test(`update_agent with policy ${policy} fails with InvalidPolicy`, async () => {
    // Given an agent
    const ledger = await createTestLedger();
    const registered = await registerAgent(ledger);

    // When its operator sets the policy byte to ${policy}
    const instruction = withData(
      await buildUpdate(ledger, registered),
      encodeUpdateAgentInstructionData({ status: AgentStatus.Active, allowedActionTypes: policy }),
    );
    const outcome = await send(ledger, [instruction]);

    // Then it fails with InvalidPolicy
    expectProgramError(outcome, ABAS_PROGRAM__INVALID_POLICY);
  });
}

test("a revoked agent is final: no update and no new registration of its key", async () => {
  // Given an agent its operator revoked
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger);
  await updateAgent(ledger, registered, { status: AgentStatus.Revoked });
  const revoked = readAccount(ledger, registered.agentAccount);
  assert.equal(decodeAgentAccount(revoked.data).status, AgentStatus.Revoked);

  // When the operator tries to reactivate it
  const reactivate = await send(ledger, [await buildUpdate(ledger, registered, AgentStatus.Active, 0b1111)]);

  // Then it fails with AgentRevoked
  expectProgramError(reactivate, ABAS_PROGRAM__AGENT_REVOKED);

  // And revoking it again fails the same way
  const revokeAgain = await send(ledger, [
    await buildUpdate(ledger, registered, AgentStatus.Revoked, 0b1111),
  ]);
  expectProgramError(revokeAgain, ABAS_PROGRAM__AGENT_REVOKED);

  // And the key cannot be registered again, by anyone; the account stays as it was
  const register = await buildRegisterAgentInstruction({
    programId: ledger.programId,
    operator: await createOperator(ledger),
    agent: registered.agent,
    allowedActionTypes: 0b1111,
  });
  expectProgramError(await send(ledger, [register]), ABAS_PROGRAM__AGENT_ALREADY_REGISTERED);
  assert.deepEqual(readAccount(ledger, registered.agentAccount), revoked);
});

test("update_agent on an agent account the program does not own fails with InvalidAccountOwner", async () => {
  // Given a copy of a real agent account, byte for byte, owned by another program
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger);
  const forged = (await generateKeyPairSigner()).address;
  const otherProgram = (await generateKeyPairSigner()).address;
  setAccount(ledger, {
    address: forged,
    owner: otherProgram,
    data: readAccount(ledger, registered.agentAccount).data,
  });

  // When the operator updates through the forged account
  const instruction = withAccount(await buildUpdate(ledger, registered), 1, {
    address: forged,
    role: AccountRole.WRITABLE,
  });
  const outcome = await send(ledger, [instruction]);

  // Then it fails with InvalidAccountOwner
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_ACCOUNT_OWNER);
});

test("update_agent on a program account that is not an Agent fails with InvalidAccountData", async () => {
  // Given the Credential (owned by the program, first byte 0) passed as the agent account
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger);
  const instruction = withAccount(await buildUpdate(ledger, registered), 1, {
    address: ledger.credential,
    role: AccountRole.WRITABLE,
  });
  const before = readAccount(ledger, ledger.credential);

  // When the operator sends the update
  const outcome = await send(ledger, [instruction]);

  // Then it fails with InvalidAccountData and the Credential is untouched
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_ACCOUNT_DATA);
  assert.deepEqual(readAccount(ledger, ledger.credential), before);
});

test("update_agent where the operator does not sign fails with MissingRequiredSignature", async () => {
  // Given an update that lists the operator without its signature
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger);
  const instruction = withAccount(await buildUpdate(ledger, registered), 0, {
    address: registered.operator.address,
    role: AccountRole.READONLY,
  });

  // When someone else sends it
  const outcome = await send(ledger, [instruction]);

  // Then it fails with MissingRequiredSignature
  expectProgramError(outcome, ABAS_PROGRAM__MISSING_REQUIRED_SIGNATURE);
});

test("update_agent with a read-only agent account fails with AccountNotWritable", async () => {
  // Given an update that passes the agent account read-only
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger);
  const instruction = withAccount(await buildUpdate(ledger, registered), 1, {
    address: registered.agentAccount,
    role: AccountRole.READONLY,
  });

  // When the operator sends it
  const outcome = await send(ledger, [instruction]);

  // Then it fails with AccountNotWritable
  expectProgramError(outcome, ABAS_PROGRAM__ACCOUNT_NOT_WRITABLE);
});
