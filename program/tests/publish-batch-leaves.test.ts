import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ABAS_PROGRAM__ACCOUNT_NOT_WRITABLE,
  ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED,
  ABAS_PROGRAM__BATCH_ALREADY_COMPLETE,
  ABAS_PROGRAM__DUPLICATE_BATCH,
  ABAS_PROGRAM__INVALID_ACCOUNT_DATA,
  ABAS_PROGRAM__INVALID_INSTRUCTION_DATA,
  ABAS_PROGRAM__INVALID_PRIVACY_FLAG,
  ABAS_PROGRAM__INVALID_SCHEMA,
  ABAS_PROGRAM__LEAF_INDEX_OUT_OF_ORDER,
  ABAS_PROGRAM__MERKLE_ROOT_MISMATCH,
  ABAS_PROGRAM__MISSING_REQUIRED_SIGNATURE,
  ABAS_PROGRAM__NOT_AGENT_OPERATOR,
  ABAS_PROGRAM__TOO_MANY_LEAVES,
} from "@abas/errors";
import {
  ActionType,
  AgentStatus,
  BATCH_COMPLETE_ACCOUNT_SIZE,
  BATCH_PENDING_ACCOUNT_SIZE,
  decodeBatchAccount,
  encodePublishBatchLeavesInstructionData,
  type LeafData,
  type RawLeafData,
} from "@abas/program-client";
import { AccountRole, type Address } from "@solana/kit";

import {
  attest,
  attestBatch,
  balanceOf,
  buildPublishLeaves,
  buildSignedBatch,
  createOperator,
  createTestLedger,
  encodeLeaves,
  expectProgramError,
  expectSuccess,
  publishAllLeaves,
  publishLeaves,
  randomHash,
  randomLeaves,
  readAccount,
  registerAgent,
  send,
  updateAgent,
  withAccount,
  withData,
  LEAVES_PER_CHUNK,
  type RegisteredAgent,
  type SignedBatch,
  type TestLedger,
} from "./harness.js";

const FEE = 5_000n;

async function arrangeBatch(
  itemCount: number,
  leaves: LeafData[] = randomLeaves(itemCount),
): Promise<{ ledger: TestLedger; registered: RegisteredAgent; batch: SignedBatch }> {
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger);
  const batch = await attestBatch(ledger, { ...registered, leaves });
  return { ledger, registered, batch };
}

function publish(
  ledger: TestLedger,
  registered: RegisteredAgent,
  batch: SignedBatch,
  startIndex: number,
  leaves: readonly LeafData[] = batch.leaves.slice(startIndex, startIndex + LEAVES_PER_CHUNK),
) {
  return publishLeaves(ledger, {
    operator: registered.operator,
    agent: registered.agent.address,
    merkleRoot: batch.merkleRoot,
    startIndex,
    leaves,
  });
}

function withOtherHash(leaf: LeafData): LeafData {
  return { ...leaf, storedHash: randomHash() };
}

test("publishing all 100 leaves in order completes the batch; the account shrinks and its frontier's rent goes back", async () => {
  // Given a committed batch of 100 items: a pending account with room for the Merkle frontier
  const { ledger, registered, batch } = await arrangeBatch(100);
  const pending = readAccount(ledger, batch.batch);
  assert.equal(pending.data.length, BATCH_PENDING_ACCOUNT_SIZE);
  const operatorBefore = balanceOf(ledger, registered.operator.address);

  // When the operator publishes the leaves in chunks, one transaction each
  const outcomes = await publishAllLeaves(ledger, { ...registered, agent: registered.agent.address, batch });

  // Then it took as few transactions as fit, each within the packet limit, carrying the leaves
  assert.equal(outcomes.length, Math.ceil(100 / LEAVES_PER_CHUNK));
  for (const outcome of outcomes)
    assert.ok(outcome.size <= 1232, `a chunk transaction is ${outcome.size} bytes`);
  const published = outcomes.map((outcome) => outcome.instructions[0]!.data!.subarray(3));
  assert.deepEqual(Uint8Array.from(published.flatMap((chunk) => [...chunk])), encodeLeaves(batch.leaves));

  // And the batch is complete: the last leaf reproduced the signed root, the frontier is gone
  const complete = readAccount(ledger, batch.batch);
  assert.equal(complete.data.length, BATCH_COMPLETE_ACCOUNT_SIZE);
  const decoded = decodeBatchAccount(complete.data);
  assert.equal(decoded.leavesPublished, 100);
  assert.equal(decoded.isComplete, true);
  assert.deepEqual(decoded.merkleRoot, batch.merkleRoot);
  // (the fields before the frontier are as committed, but for the SAS data length and the count)
  const expectedFields = Uint8Array.from(pending.data.subarray(0, 260));
  new DataView(expectedFields.buffer).setUint32(97, 163, true);
  expectedFields[259] = 100;
  assert.deepEqual(complete.data.subarray(0, 260), expectedFields);
  assert.deepEqual(complete.data.subarray(260, 264), new Uint8Array(4)); // frontier: empty
  assert.deepEqual(complete.data.subarray(264), pending.data.subarray(264 + 224)); // signer, expiry, token

  // And the account holds exactly the rent of its final size; the rest went back to the operator
  const finalRent = ledger.svm.minimumBalanceForRentExemption(BigInt(BATCH_COMPLETE_ACCOUNT_SIZE));
  assert.equal(complete.lamports, finalRent);
  const fees = FEE * BigInt(outcomes.length);
  assert.equal(
    balanceOf(ledger, registered.operator.address),
    operatorBefore - fees + pending.lamports - finalRent,
  );
});

test("every batch size from 1 to 100 completes in chunks of every shape: the program's tree is RFC 6962's", async () => {
  // Given one agent, and for every item count a batch whose root the client computed (RFC 6962)
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger);
  for (let itemCount = 1; itemCount <= 100; itemCount++) {
    const batch = await attestBatch(ledger, { ...registered, leaves: randomLeaves(itemCount) });

    // When its leaves are published in chunks whose size varies with the count (1 to 13 leaves)
    const chunkSize = (itemCount % 13) + 1;
    await publishAllLeaves(ledger, { ...registered, agent: registered.agent.address, batch, chunkSize });

    // Then the program's frontier reproduced the signed root and the batch is complete
    const decoded = decodeBatchAccount(readAccount(ledger, batch.batch).data);
    assert.equal(decoded.isComplete, true, `batch of ${itemCount} in chunks of ${chunkSize}`);
  }
});

test("each chunk advances leaves_published to start + count and keeps the batch pending", async () => {
  // Given a committed batch of 10
  const { ledger, registered, batch } = await arrangeBatch(10);

  // When the operator publishes leaves 0..4, then 4..7
  expectSuccess(await publish(ledger, registered, batch, 0, batch.leaves.slice(0, 4)));
  const afterFirst = decodeBatchAccount(readAccount(ledger, batch.batch).data);
  expectSuccess(await publish(ledger, registered, batch, 4, batch.leaves.slice(4, 7)));
  const afterSecond = readAccount(ledger, batch.batch);

  // Then leaves_published follows, and the batch is still pending at its pending size
  assert.equal(afterFirst.leavesPublished, 4);
  assert.equal(decodeBatchAccount(afterSecond.data).leavesPublished, 7);
  assert.equal(decodeBatchAccount(afterSecond.data).isComplete, false);
  assert.equal(afterSecond.data.length, BATCH_PENDING_ACCOUNT_SIZE);
});

test("a final chunk whose leaves do not give the signed root fails with MerkleRootMismatch and changes nothing", async () => {
  // Given a batch of 10 with its first 5 leaves published
  const { ledger, registered, batch } = await arrangeBatch(10);
  expectSuccess(await publish(ledger, registered, batch, 0, batch.leaves.slice(0, 5)));
  const before = readAccount(ledger, batch.batch);

  // When the last 5 are published with one leaf changed
  const tampered = batch.leaves.slice(5, 10).map((leaf, i) => (i === 2 ? withOtherHash(leaf) : leaf));
  const outcome = await publish(ledger, registered, batch, 5, tampered);

  // Then it fails with MerkleRootMismatch and the account is exactly as before
  expectProgramError(outcome, ABAS_PROGRAM__MERKLE_ROOT_MISMATCH);
  assert.deepEqual(readAccount(ledger, batch.batch), before);

  // And leaves in the wrong order fail the same way
  const swapped = [batch.leaves[6]!, batch.leaves[5]!, ...batch.leaves.slice(7, 10)];
  expectProgramError(
    await publish(ledger, registered, batch, 5, swapped),
    ABAS_PROGRAM__MERKLE_ROOT_MISMATCH,
  );

  // And the right leaves still complete the batch
  expectSuccess(await publish(ledger, registered, batch, 5, batch.leaves.slice(5, 10)));
  assert.equal(decodeBatchAccount(readAccount(ledger, batch.batch).data).isComplete, true);
});

test("a one-chunk batch published with a wrong leaf fails with MerkleRootMismatch and stays pending", async () => {
  // Given a committed batch of 3 items
  const { ledger, registered, batch } = await arrangeBatch(3);
  const before = readAccount(ledger, batch.batch);

  // When all three are published at once, the first with another action type than signed
  const first = batch.leaves[0]!;
  const wrong = [
    { ...first, actionType: first.actionType === 0 ? 1 : 0 } as LeafData,
    ...batch.leaves.slice(1),
  ];
  const outcome = await publish(ledger, registered, batch, 0, wrong);

  // Then it fails with MerkleRootMismatch and nothing changes
  expectProgramError(outcome, ABAS_PROGRAM__MERKLE_ROOT_MISMATCH);
  assert.deepEqual(readAccount(ledger, batch.batch), before);
  assert.equal(decodeBatchAccount(before.data).leavesPublished, 0);
});

test("a chunk that repeats published leaves fails with LeafIndexOutOfOrder: leaves_published never goes back", async () => {
  // Given a batch of 8 with 6 leaves published
  const { ledger, registered, batch } = await arrangeBatch(8);
  expectSuccess(await publish(ledger, registered, batch, 0, batch.leaves.slice(0, 6)));
  const before = readAccount(ledger, batch.batch);

  // When the operator publishes from index 2 again, as a rewrite would
  const outcome = await publish(ledger, registered, batch, 2, batch.leaves.slice(2, 8));

  // Then it fails with LeafIndexOutOfOrder and leaves_published stays 6
  expectProgramError(outcome, ABAS_PROGRAM__LEAF_INDEX_OUT_OF_ORDER);
  assert.deepEqual(readAccount(ledger, batch.batch), before);

  // And the next chunk in order completes the batch
  expectSuccess(await publish(ledger, registered, batch, 6, batch.leaves.slice(6, 8)));
  assert.equal(decodeBatchAccount(readAccount(ledger, batch.batch).data).isComplete, true);
});

test("a chunk that leaves a gap fails with LeafIndexOutOfOrder", async () => {
  // Given a batch of 10 with leaves 0..3 published
  const { ledger, registered, batch } = await arrangeBatch(10);
  expectSuccess(await publish(ledger, registered, batch, 0, batch.leaves.slice(0, 3)));

  // When the operator publishes from index 4 (skipping 3)
  const outcome = await publish(ledger, registered, batch, 4, batch.leaves.slice(4, 6));

  // Then it fails with LeafIndexOutOfOrder
  expectProgramError(outcome, ABAS_PROGRAM__LEAF_INDEX_OUT_OF_ORDER);

  // And starting anywhere but 0 on a fresh batch fails the same way
  const fresh = await attestBatch(ledger, { ...registered, leaves: randomLeaves(4) });
  const skipFirst = await publish(ledger, registered, fresh, 1, fresh.leaves.slice(1));
  expectProgramError(skipFirst, ABAS_PROGRAM__LEAF_INDEX_OUT_OF_ORDER);
});

test("a chunk past item_count fails with TooManyLeaves", async () => {
  // Given a batch of 5 with 3 leaves published
  const { ledger, registered, batch } = await arrangeBatch(5);
  expectSuccess(await publish(ledger, registered, batch, 0, batch.leaves.slice(0, 3)));

  // When the operator publishes 3 leaves from index 3 (one too many)
  const outcome = await publish(ledger, registered, batch, 3, [
    ...batch.leaves.slice(3, 5),
    randomLeaves(1)[0]!,
  ]);

  // Then it fails with TooManyLeaves
  expectProgramError(outcome, ABAS_PROGRAM__TOO_MANY_LEAVES);
});

test("publishing to a complete batch fails with BatchAlreadyComplete", async () => {
  // Given a batch of 4 fully published
  const { ledger, registered, batch } = await arrangeBatch(4);
  expectSuccess(await publish(ledger, registered, batch, 0, batch.leaves));
  const complete = readAccount(ledger, batch.batch);

  // When the operator publishes the same leaves again, or the next index
  const again = await publish(ledger, registered, batch, 0, batch.leaves);
  const next = await publish(ledger, registered, batch, 4, batch.leaves.slice(0, 1));

  // Then both fail with BatchAlreadyComplete and nothing changes
  expectProgramError(again, ABAS_PROGRAM__BATCH_ALREADY_COMPLETE);
  expectProgramError(next, ABAS_PROGRAM__BATCH_ALREADY_COMPLETE);
  assert.deepEqual(readAccount(ledger, batch.batch), complete);
});

test("a commit that names another item count than its leaves owns its root but can never complete", async () => {
  // Given an agent that signed the root of 2 leaves but named 3 items (the batch seeds leave the count out)
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger);
  const leaves = randomLeaves(2);
  const miscounted = await attestBatch(ledger, { ...registered, leaves, itemCount: 3 });

  // When the same root is committed again with the right count
  const correct = await buildSignedBatch(ledger, { ...registered, leaves });
  const duplicate = await send(ledger, correct.instructions);

  // Then it fails with DuplicateBatch: the agent's first commit of a root owns the address
  expectProgramError(duplicate, ABAS_PROGRAM__DUPLICATE_BATCH);

  // And the miscounted batch takes its 2 leaves, but no third leaf reproduces the root of 2
  // (RFC 6962 hashes leaves and inner nodes with different prefixes)
  expectSuccess(await publish(ledger, registered, miscounted, 0, leaves));
  const third = await publish(ledger, registered, miscounted, 2, randomLeaves(1));
  expectProgramError(third, ABAS_PROGRAM__MERKLE_ROOT_MISMATCH);
});

test("a leaf whose action type is outside the batch's mask fails with ActionTypeNotAllowed", async () => {
  // Given a batch signed with the mask Transaction|ToolCall
  const leaves = randomLeaves(6, [ActionType.Transaction, ActionType.ToolCall]);
  const { ledger, registered, batch } = await arrangeBatch(6, leaves);
  assert.equal(batch.actionTypes, 0b0011);

  // When a chunk contains a Decision leaf
  const decision = await publish(ledger, registered, batch, 0, [
    batch.leaves[0]!,
    { ...batch.leaves[1]!, actionType: ActionType.Decision },
  ]);

  // Then it fails with ActionTypeNotAllowed
  expectProgramError(decision, ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED);

  // And a leaf with action type 4 fails the same way
  const raw: RawLeafData[] = [{ actionType: 4, privacyMode: 0, storedHash: randomHash() }];
  const data = encodePublishBatchLeavesInstructionData({ startIndex: 0, leaves: raw });
  expectProgramError(
    await send(ledger, [withData(await chunkInstruction(ledger, registered, batch), data)]),
    ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED,
  );
});

/** The instruction that publishes the batch's first leaf, for tests that then alter it. */
async function chunkInstruction(ledger: TestLedger, registered: RegisteredAgent, batch: SignedBatch) {
  return await buildPublishLeaves(ledger, {
    operator: registered.operator,
    agent: registered.agent.address,
    merkleRoot: batch.merkleRoot,
    startIndex: 0,
    leaves: batch.leaves.slice(0, 1),
  });
}

test("a leaf with privacy flag 2 fails with InvalidPrivacyFlag", async () => {
  // Given a committed batch
  const { ledger, registered, batch } = await arrangeBatch(3, randomLeaves(3, [ActionType.ToolCall]));

  // When a leaf's privacy flag byte is 2
  const raw: RawLeafData[] = [{ actionType: ActionType.ToolCall, privacyMode: 2, storedHash: randomHash() }];
  const data = encodePublishBatchLeavesInstructionData({ startIndex: 0, leaves: raw });
  const outcome = await send(ledger, [withData(await chunkInstruction(ledger, registered, batch), data)]);

  // Then it fails with InvalidPrivacyFlag
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_PRIVACY_FLAG);
});

for (const [what, alter] of [
  ["announces 2 leaves but carries 1", (data: Uint8Array) => data.fill(2, 2, 3)],
  ["announces 0 leaves", (data: Uint8Array) => data.subarray(0, 3).fill(0, 2, 3)],
  ["stops inside its header", (data: Uint8Array) => data.subarray(0, 2)],
] as const) {
  test(`a chunk that ${what} fails with InvalidInstructionData`, async () => {
    // Given a chunk that ${what}
    const { ledger, registered, batch } = await arrangeBatch(3);
    const instruction = await chunkInstruction(ledger, registered, batch);
    const data = alter(Uint8Array.from(instruction.data!));

    // When it is sent
    const outcome = await send(ledger, [withData(instruction, data)]);

    // Then it fails with InvalidInstructionData
    expectProgramError(outcome, ABAS_PROGRAM__INVALID_INSTRUCTION_DATA);
  });
}

test("publish_batch_leaves by an operator that did not commit the batch fails with NotAgentOperator", async () => {
  // Given a committed batch and an operator that is not the agent's
  const { ledger, registered, batch } = await arrangeBatch(3);
  const stranger = await createOperator(ledger);
  const before = readAccount(ledger, batch.batch);

  // When the stranger publishes its leaves, right ones or not
  const right = await publish(ledger, { ...registered, operator: stranger }, batch, 0, batch.leaves);
  const wrong = await publish(ledger, { ...registered, operator: stranger }, batch, 0, randomLeaves(1));

  // Then both fail with NotAgentOperator and the batch is untouched
  expectProgramError(right, ABAS_PROGRAM__NOT_AGENT_OPERATOR);
  expectProgramError(wrong, ABAS_PROGRAM__NOT_AGENT_OPERATOR);
  assert.deepEqual(readAccount(ledger, batch.batch), before);
});

test("publish_batch_leaves where the operator does not sign fails with MissingRequiredSignature", async () => {
  // Given a chunk that lists the operator without its signature
  const { ledger, registered, batch } = await arrangeBatch(3);
  const instruction = await chunkInstruction(ledger, registered, batch);

  // When someone else sends it
  const outcome = await send(ledger, [
    withAccount(instruction, 0, { address: registered.operator.address, role: AccountRole.WRITABLE }),
  ]);

  // Then it fails with MissingRequiredSignature
  expectProgramError(outcome, ABAS_PROGRAM__MISSING_REQUIRED_SIGNATURE);
});

for (const [what, index] of [
  ["operator (who gets the frontier's rent back)", 0],
  ["batch", 1],
] as const) {
  test(`publish_batch_leaves with a read-only ${what} fails with AccountNotWritable`, async () => {
    // Given a chunk whose ${what} is passed read-only
    const { ledger, registered, batch } = await arrangeBatch(3);
    const instruction = await chunkInstruction(ledger, registered, batch);
    const meta = instruction.accounts![index]!;
    const role = index === 0 ? AccountRole.READONLY_SIGNER : AccountRole.READONLY;

    // When it is sent
    const outcome = await send(ledger, [withAccount(instruction, index, { ...meta, role })]);

    // Then it fails with AccountNotWritable
    expectProgramError(outcome, ABAS_PROGRAM__ACCOUNT_NOT_WRITABLE);
  });
}

test("publish_batch_leaves with the BehaviorAttestation Schema fails with InvalidSchema", async () => {
  // Given a committed batch
  const { ledger, registered, batch } = await arrangeBatch(2);
  const instruction = await chunkInstruction(ledger, registered, batch);

  // When the single-attestation Schema is passed
  const outcome = await send(ledger, [
    withAccount(instruction, 2, { address: ledger.attestationSchema, role: AccountRole.READONLY }),
  ]);

  // Then it fails with InvalidSchema
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_SCHEMA);
});

for (const status of [AgentStatus.Suspended, AgentStatus.Revoked]) {
  test(`the operator still publishes the leaves of an accepted batch after the agent gets status ${status}`, async () => {
    // Given a committed batch, then the agent ${status === AgentStatus.Suspended ? "suspended" : "revoked"}
    const { ledger, registered, batch } = await arrangeBatch(5);
    await updateAgent(ledger, registered, { status });

    // When the operator publishes its leaves
    const outcome = await publish(ledger, registered, batch, 0, batch.leaves);

    // Then the batch completes
    expectSuccess(outcome);
    assert.equal(decodeBatchAccount(readAccount(ledger, batch.batch).data).isComplete, true);
  });
}

for (const [what, pick] of [
  [
    "a single attestation",
    (accounts: { attestation: Address; agentAccount: Address }) => accounts.attestation,
  ],
  ["the agent account", (accounts: { attestation: Address; agentAccount: Address }) => accounts.agentAccount],
] as const) {
  test(`publish_batch_leaves with ${what} as the batch fails with InvalidAccountData`, async () => {
    // Given a committed batch and, passed in its place, ${what} (owned by the program, not a batch)
    const { ledger, registered, batch } = await arrangeBatch(2);
    const single = await attest(ledger, registered);
    const instruction = await chunkInstruction(ledger, registered, batch);
    const impostor = pick({ attestation: single.attestation, agentAccount: registered.agentAccount });
    const before = readAccount(ledger, impostor);

    // When it is sent
    const outcome = await send(ledger, [
      withAccount(instruction, 1, { address: impostor, role: AccountRole.WRITABLE }),
    ]);

    // Then it fails with InvalidAccountData and that account is untouched
    expectProgramError(outcome, ABAS_PROGRAM__INVALID_ACCOUNT_DATA);
    assert.deepEqual(readAccount(ledger, impostor), before);
  });
}
