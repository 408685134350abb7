import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED,
  ABAS_PROGRAM__AGENT_REVOKED,
  ABAS_PROGRAM__AGENT_SUSPENDED,
  ABAS_PROGRAM__DUPLICATE_BATCH,
  ABAS_PROGRAM__ED25519_OFFSETS_OUTSIDE_INSTRUCTION,
  ABAS_PROGRAM__INVALID_ACTION_TYPE,
  ABAS_PROGRAM__INVALID_BATCH_SIZE,
  ABAS_PROGRAM__INVALID_CREDENTIAL,
  ABAS_PROGRAM__INVALID_INSTRUCTION_DATA,
  ABAS_PROGRAM__INVALID_PDA,
  ABAS_PROGRAM__INVALID_SCHEMA,
  ABAS_PROGRAM__MESSAGE_MISMATCH,
  ABAS_PROGRAM__MISSING_ED25519_INSTRUCTION,
  ABAS_PROGRAM__NOT_AGENT_OPERATOR,
  ABAS_PROGRAM__SIGNER_MISMATCH,
  getProgramErrorName,
} from "@abas/errors";
import {
  ActionType,
  AgentStatus,
  buildEd25519VerifyInstruction,
  decodeAgentAccount,
  decodeBatchAccount,
  ED25519_PROGRAM_ADDRESS,
  encodeAttestBatchInstructionData,
  encodeEd25519InstructionData,
  getAgentStatusName,
  MAX_BATCH_ITEMS,
  signMessageWithKeyPair,
} from "@abas/program-client";
import {
  AccountRole,
  address,
  generateKeyPairSigner,
  getAddressEncoder,
  type Instruction,
} from "@solana/kit";

import {
  advanceLedgerTime,
  attestBatch,
  balanceOf,
  buildSignedBatch,
  createOperator,
  createTestLedger,
  expectProgramError,
  expectSuccess,
  getAccount,
  randomLeaves,
  readAccount,
  registerAgent,
  send,
  REFUSING_UPDATES,
  updateAgent,
  withAccount,
  withData,
  type RegisteredAgent,
  type SignedBatch,
  type TestLedger,
} from "./harness.js";
import { accountPosition } from "./idl-positions.js";

const CREDENTIAL = accountPosition("attestBatch", "credential");
const SCHEMA = accountPosition("attestBatch", "batchSchema");

async function arrange(
  allowedActionTypes = 0b1111,
): Promise<{ ledger: TestLedger; registered: RegisteredAgent }> {
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger, { allowedActionTypes });
  return { ledger, registered };
}

async function signedBatch(
  ledger: TestLedger,
  registered: RegisteredAgent,
  count = 10,
): Promise<SignedBatch> {
  return await buildSignedBatch(ledger, { ...registered, leaves: randomLeaves(count) });
}

function batchDataWith(
  signed: SignedBatch,
  change: { itemCount?: number; actionTypes?: number },
): Uint8Array {
  return encodeAttestBatchInstructionData({
    itemCount: change.itemCount ?? signed.itemCount,
    actionTypes: change.actionTypes ?? signed.actionTypes,
    batchBump: signed.batchBump,
    merkleRoot: signed.merkleRoot,
  });
}

async function sendBatchWith(
  ledger: TestLedger,
  signed: SignedBatch,
  modify: (ix: Instruction) => Instruction,
) {
  return await send(ledger, [signed.instructions[0], modify(signed.instructions[1])]);
}

function expectNoBatch(ledger: TestLedger, signed: SignedBatch): void {
  assert.equal(getAccount(ledger, signed.batch), undefined, "no batch account was created");
}

for (const itemCount of [1, 10, MAX_BATCH_ITEMS]) {
  test(`attest_batch commits to ${itemCount} item(s) in one transaction`, async () => {
    // Given an active agent and a batch of ${itemCount} signed items
    const { ledger, registered } = await arrange();
    const time = advanceLedgerTime(ledger, { seconds: 30n, slots: 75n });
    const operatorBefore = balanceOf(ledger, registered.operator.address);

    // When the operator sends attest_batch in one transaction
    const batch = await attestBatch(ledger, { ...registered, leaves: randomLeaves(itemCount) });

    // Then that transaction fits the packet limit
    assert.ok(batch.outcome.size <= 1232, `the transaction is ${batch.outcome.size} bytes`);

    // And the batch account at ["batch", agent, root] is 560 bytes in the SAS layout, whatever the
    // item count: the fixed fields and a zeroed Merkle frontier of 7 × 32 bytes
    const account = readAccount(ledger, batch.batch);
    const size = 560;
    assert.equal(account.owner, ledger.programId);
    assert.equal(account.data.length, size);
    const rent = ledger.svm.minimumBalanceForRentExemption(BigInt(size));
    assert.equal(account.lamports, rent);
    assert.equal(operatorBefore - balanceOf(ledger, registered.operator.address), rent);
    assert.equal(account.data[0], 2);
    assert.deepEqual(account.data.subarray(1, 33), batch.merkleRoot, "nonce = Merkle root");
    assert.deepEqual(account.data.subarray(65, 97), getAddressEncoder().encode(ledger.batchSchema));
    const view = new DataView(account.data.buffer);
    assert.equal(view.getUint32(97, true), 163 + 224, "SAS data length");
    assert.equal(view.getUint32(260, true), 224, "frontier length");
    assert.deepEqual(account.data.subarray(264, 264 + 224), new Uint8Array(224));

    // And it decodes to the signed commitment, no leaf published yet
    const decoded = decodeBatchAccount(account.data);
    assert.deepEqual(decoded, {
      nonce: batch.merkleRoot,
      credential: ledger.credential,
      schema: ledger.batchSchema,
      signer: registered.agent.address,
      expiry: 0n,
      tokenAccount: address("11111111111111111111111111111111"),
      merkleRoot: batch.merkleRoot,
      itemCount,
      actionTypes: batch.actionTypes,
      agentSignature: Uint8Array.from(batch.signature),
      operator: registered.operator.address,
      timestamp: time.unixTimestamp,
      slot: time.slot,
      leavesPublished: 0,
      isComplete: false,
    });

    // And the agent's counters record one batch of ${itemCount} items
    const agent = decodeAgentAccount(readAccount(ledger, registered.agentAccount).data);
    assert.equal(agent.batchCount, 1n);
    assert.equal(agent.batchItemCount, BigInt(itemCount));
    assert.equal(agent.lastAttestedAt, time.unixTimestamp);
    assert.equal(agent.attestationCount, 0n);
  });
}

test("batch counters add up over several batches", async () => {
  // Given an agent that committed a batch of 3
  const { ledger, registered } = await arrange();
  await attestBatch(ledger, { ...registered, leaves: randomLeaves(3) });

  // When it commits batches of 7 and 100
  await attestBatch(ledger, { ...registered, leaves: randomLeaves(7) });
  await attestBatch(ledger, { ...registered, leaves: randomLeaves(100) });

  // Then batch_count is 3 and batch_item_count 110
  const agent = decodeAgentAccount(readAccount(ledger, registered.agentAccount).data);
  assert.equal(agent.batchCount, 3n);
  assert.equal(agent.batchItemCount, 110n);
});

for (const itemCount of [0, MAX_BATCH_ITEMS + 1]) {
  test(`attest_batch with item_count ${itemCount} fails with InvalidBatchSize`, async () => {
    // Given a batch instruction claiming ${itemCount} items
    const { ledger, registered } = await arrange();
    const signed = await signedBatch(ledger, registered);

    // When it is sent
    const outcome = await sendBatchWith(ledger, signed, (ix) =>
      withData(ix, batchDataWith(signed, { itemCount })),
    );

    // Then it fails with InvalidBatchSize
    expectProgramError(outcome, ABAS_PROGRAM__INVALID_BATCH_SIZE);
    expectNoBatch(ledger, signed);
  });
}

for (const actionTypes of [0, 16]) {
  test(`attest_batch with action type mask ${actionTypes} fails with InvalidActionType`, async () => {
    // Given a batch instruction whose mask byte is ${actionTypes}
    const { ledger, registered } = await arrange();
    const signed = await signedBatch(ledger, registered);

    // When it is sent
    const outcome = await sendBatchWith(ledger, signed, (ix) =>
      withData(ix, batchDataWith(signed, { actionTypes })),
    );

    // Then it fails with InvalidActionType
    expectProgramError(outcome, ABAS_PROGRAM__INVALID_ACTION_TYPE);
  });
}

test("attest_batch with a mask wider than the agent's policy fails with ActionTypeNotAllowed", async () => {
  // Given an agent allowed Transaction and ToolCall, and a batch that also uses Decision
  const { ledger, registered } = await arrange(0b0011);
  const leaves = randomLeaves(6, [ActionType.Transaction, ActionType.ToolCall, ActionType.Decision]);
  const signed = await buildSignedBatch(ledger, { ...registered, leaves });
  assert.equal(signed.actionTypes, 0b0111);

  // When the operator sends it
  const outcome = await send(ledger, signed.instructions);

  // Then it fails with ActionTypeNotAllowed
  expectProgramError(outcome, ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED);
  expectNoBatch(ledger, signed);
});

test("attest_batch with a mask inside the policy succeeds even if wider than the items' types", async () => {
  // Given an agent allowed everything and a batch of ToolCalls signed with the mask ToolCall|Decision
  const { ledger, registered } = await arrange();
  const leaves = randomLeaves(4, [ActionType.ToolCall]);

  // When the operator sends it
  const batch = await attestBatch(ledger, { ...registered, leaves, actionTypes: 0b0110 });

  // Then the batch stores that mask
  assert.equal(decodeBatchAccount(readAccount(ledger, batch.batch).data).actionTypes, 0b0110);
});

test("committing the same root twice fails with DuplicateBatch", async () => {
  // Given a batch the agent already committed
  const { ledger, registered } = await arrange();
  const first = await attestBatch(ledger, { ...registered, leaves: randomLeaves(5) });
  const before = readAccount(ledger, first.batch);

  // When the same signed batch is sent again
  const outcome = await send(ledger, first.instructions);

  // Then it fails with DuplicateBatch and the batch is unchanged
  expectProgramError(outcome, ABAS_PROGRAM__DUPLICATE_BATCH);
  assert.deepEqual(readAccount(ledger, first.batch), before);
  assert.equal(decodeAgentAccount(readAccount(ledger, registered.agentAccount).data).batchCount, 1n);
});

for (const [change, update] of REFUSING_UPDATES) {
  test(`a committed root sent again after ${change} fails with DuplicateBatch`, async () => {
    // Given a committed batch of ToolCall and Decision items, then a change of the agent that
    // refuses new batches of those types
    const { ledger, registered } = await arrange();
    const leaves = randomLeaves(5, [ActionType.ToolCall, ActionType.Decision]);
    const first = await attestBatch(ledger, { ...registered, leaves });
    await updateAgent(ledger, registered, update);

    // When the same signed batch is sent again (a resend whose first answer was lost)
    const outcome = await send(ledger, first.instructions);

    // Then the answer says the root is on the ledger: a refusal of a resend is final
    expectProgramError(outcome, ABAS_PROGRAM__DUPLICATE_BATCH);
  });
}

for (const [status, code] of [
  [AgentStatus.Suspended, ABAS_PROGRAM__AGENT_SUSPENDED],
  [AgentStatus.Revoked, ABAS_PROGRAM__AGENT_REVOKED],
] as const) {
  test(`attest_batch for a ${getAgentStatusName(status).toLowerCase()} agent fails with ${getProgramErrorName(code)}`, async () => {
    // Given an agent that is no longer active
    const { ledger, registered } = await arrange();
    await updateAgent(ledger, registered, { status });

    // When the operator commits a signed batch
    const signed = await signedBatch(ledger, registered);
    const outcome = await send(ledger, signed.instructions);

    // Then it fails and nothing is recorded
    expectProgramError(outcome, code);
    expectNoBatch(ledger, signed);
  });
}

test("attest_batch by another operator fails with NotAgentOperator", async () => {
  // Given a batch signed by the agent, submitted by an operator that is not its operator
  const { ledger, registered } = await arrange();
  const stranger = await createOperator(ledger);
  const signed = await buildSignedBatch(ledger, {
    operator: stranger,
    agent: registered.agent,
    leaves: randomLeaves(3),
  });

  // When it is sent
  const outcome = await send(ledger, signed.instructions);

  // Then it fails with NotAgentOperator
  expectProgramError(outcome, ABAS_PROGRAM__NOT_AGENT_OPERATOR);
  expectNoBatch(ledger, signed);
});

test("attest_batch without the Ed25519 instruction fails with MissingEd25519Instruction", async () => {
  // Given a correct attest_batch instruction
  const { ledger, registered } = await arrange();
  const signed = await signedBatch(ledger, registered);

  // When it is sent alone
  const outcome = await send(ledger, [signed.instructions[1]]);

  // Then it fails with MissingEd25519Instruction
  expectProgramError(outcome, ABAS_PROGRAM__MISSING_ED25519_INSTRUCTION);
  expectNoBatch(ledger, signed);
});

test("attest_batch with the batch message signed by another key fails with SignerMismatch", async () => {
  // Given the right batch message signed and verified with another key
  const { ledger, registered } = await arrange();
  const signed = await signedBatch(ledger, registered);
  const impostor = await generateKeyPairSigner();
  const signature = await signMessageWithKeyPair(impostor.keyPair, signed.message);
  const precompile = buildEd25519VerifyInstruction({
    publicKey: impostor.address,
    message: signed.message,
    signature,
  });

  // When it precedes attest_batch
  const outcome = await send(ledger, [precompile, signed.instructions[1]]);

  // Then it fails with SignerMismatch
  expectProgramError(outcome, ABAS_PROGRAM__SIGNER_MISMATCH);
  expectNoBatch(ledger, signed);
});

test("attest_batch with the agent's signature of another batch fails with MessageMismatch", async () => {
  // Given the agent's valid signature of a different batch
  const { ledger, registered } = await arrange();
  const signed = await signedBatch(ledger, registered);
  const other = await signedBatch(ledger, registered);

  // When it precedes attest_batch
  const outcome = await send(ledger, [other.instructions[0], signed.instructions[1]]);

  // Then it fails with MessageMismatch
  expectProgramError(outcome, ABAS_PROGRAM__MESSAGE_MISMATCH);
  expectNoBatch(ledger, signed);
});

test("attest_batch claiming fewer items than the agent signed fails with MessageMismatch", async () => {
  // Given the agent signed a batch of 10 items and the instruction claims 9
  const { ledger, registered } = await arrange();
  const signed = await signedBatch(ledger, registered, 10);

  // When it is sent
  const outcome = await sendBatchWith(ledger, signed, (ix) =>
    withData(ix, batchDataWith(signed, { itemCount: 9 })),
  );

  // Then it fails with MessageMismatch
  expectProgramError(outcome, ABAS_PROGRAM__MESSAGE_MISMATCH);
});

test("attest_batch where the precompile reads its message from another instruction fails with Ed25519OffsetsOutsideInstruction", async () => {
  // Given a valid precompile instruction at index 0 and, at index 1, one reading its message from index 0
  const { ledger, registered } = await arrange();
  const signed = await signedBatch(ledger, registered);
  const data = encodeEd25519InstructionData({
    publicKey: registered.agent.address,
    signature: signed.signature,
    message: signed.message,
    overrides: { messageInstructionIndex: 0 },
  });

  // When both precede attest_batch
  const outcome = await send(ledger, [
    signed.instructions[0],
    { programAddress: ED25519_PROGRAM_ADDRESS, data },
    signed.instructions[1],
  ]);

  // Then it fails with Ed25519OffsetsOutsideInstruction
  expectProgramError(outcome, ABAS_PROGRAM__ED25519_OFFSETS_OUTSIDE_INSTRUCTION, 2);
  expectNoBatch(ledger, signed);
});

test("attest_batch with the BehaviorAttestation Schema fails with InvalidSchema", async () => {
  // Given attest_batch passing the single-attestation Schema
  const { ledger, registered } = await arrange();
  const signed = await signedBatch(ledger, registered);

  // When it is sent
  const outcome = await sendBatchWith(ledger, signed, (ix) =>
    withAccount(ix, SCHEMA, { address: ledger.attestationSchema, role: AccountRole.READONLY }),
  );

  // Then it fails with InvalidSchema
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_SCHEMA);
});

test("attest_batch with the batch Schema as credential fails with InvalidCredential", async () => {
  // Given attest_batch passing a Schema where the Credential belongs
  const { ledger, registered } = await arrange();
  const signed = await signedBatch(ledger, registered);

  // When it is sent
  const outcome = await sendBatchWith(ledger, signed, (ix) =>
    withAccount(ix, CREDENTIAL, { address: ledger.batchSchema, role: AccountRole.READONLY }),
  );

  // Then it fails with InvalidCredential
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_CREDENTIAL);
});

test("attest_batch into an account that is not the batch PDA fails with InvalidPda", async () => {
  // Given attest_batch whose batch account is an arbitrary address
  const { ledger, registered } = await arrange();
  const signed = await signedBatch(ledger, registered);
  const elsewhere = (await generateKeyPairSigner()).address;

  // When it is sent
  const outcome = await sendBatchWith(ledger, signed, (ix) =>
    withAccount(ix, 2, { address: elsewhere, role: AccountRole.WRITABLE }),
  );

  // Then it fails with InvalidPda
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_PDA);
  assert.equal(getAccount(ledger, elsewhere), undefined);
});

test("attest_batch with 35 bytes of data fails with InvalidInstructionData", async () => {
  // Given attest_batch data missing its last byte
  const { ledger, registered } = await arrange();
  const signed = await signedBatch(ledger, registered);
  const data = batchDataWith(signed, {}).subarray(0, 35);

  // When it is sent
  const outcome = await sendBatchWith(ledger, signed, (ix) => withData(ix, data));

  // Then it fails with InvalidInstructionData
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_INSTRUCTION_DATA);
});

test("an agent's batch signature cannot be replayed for another agent", async () => {
  // Given agent A's signed batch, and agent B of the same operator
  const { ledger, registered } = await arrange();
  const signedByA = await signedBatch(ledger, registered);
  const agentB = await registerAgent(ledger, { operator: registered.operator });
  const forB = await buildSignedBatch(ledger, { ...agentB, leaves: signedByA.leaves });

  // When A's precompile instruction is paired with B's attest_batch
  const outcome = await send(ledger, [signedByA.instructions[0], forB.instructions[1]]);

  // Then the program sees another key than B's and fails with SignerMismatch
  expectProgramError(outcome, ABAS_PROGRAM__SIGNER_MISMATCH);
  expectSuccess(await send(ledger, forB.instructions));
});
