import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED,
  ABAS_PROGRAM__AGENT_MISMATCH,
  ABAS_PROGRAM__BATCH_ALREADY_COMPLETE,
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
  buildInclusionProof,
  computeLeafHash,
  decodeBatchAccount,
  encodePublishBatchLeavesInstructionData,
  verifyInclusionProof,
  type LeafData,
  type RawLeafData,
} from "@abas/program-client";
import { AccountRole, type Address } from "@solana/kit";

import {
  attest,
  attestBatch,
  buildPublishLeaves,
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

test("publishing all 100 leaves in chunks completes the batch, verified against the signed root", async () => {
  // Given a committed batch of 100 items
  const { ledger, registered, batch } = await arrangeBatch(100);

  // When the operator publishes the leaves in chunks, one transaction each
  const outcomes = await publishAllLeaves(ledger, { ...registered, agent: registered.agent.address, batch });

  // Then it took several transactions, each within the packet limit
  assert.equal(outcomes.length, Math.ceil(100 / LEAVES_PER_CHUNK));
  for (const outcome of outcomes)
    assert.ok(outcome.size <= 1232, `a chunk transaction is ${outcome.size} bytes`);

  // And the batch is complete and holds every leaf, in order, byte for byte
  const account = readAccount(ledger, batch.batch);
  const decoded = decodeBatchAccount(account.data);
  assert.equal(decoded.leavesPublished, 100);
  assert.equal(decoded.isComplete, true);
  assert.deepEqual(
    decoded.leaves.map((leaf) => ({ ...leaf, storedHash: Uint8Array.from(leaf.storedHash) })),
    batch.leaves.map((leaf) => ({ ...leaf, storedHash: Uint8Array.from(leaf.storedHash) })),
  );
  const leavesStart = 101 + 163;
  assert.deepEqual(account.data.subarray(leavesStart, leavesStart + 3400), encodeLeaves(batch.leaves));

  // And an inclusion proof of every stored leaf verifies against the stored root
  const leafHashes = decoded.leaves.map(computeLeafHash);
  for (let index = 0; index < 100; index++) {
    const proof = buildInclusionProof(leafHashes, index);
    assert.ok(
      verifyInclusionProof({
        leafHash: leafHashes[index]!,
        index,
        itemCount: 100,
        proof,
        root: decoded.merkleRoot,
      }),
      `leaf ${index} is included`,
    );
  }
});

test("each chunk advances leaves_published to start + count", async () => {
  // Given a committed batch of 10
  const { ledger, registered, batch } = await arrangeBatch(10);

  // When the operator publishes leaves 0..4, then 4..7
  expectSuccess(await publish(ledger, registered, batch, 0, batch.leaves.slice(0, 4)));
  const afterFirst = decodeBatchAccount(readAccount(ledger, batch.batch).data);
  expectSuccess(await publish(ledger, registered, batch, 4, batch.leaves.slice(4, 7)));
  const afterSecond = decodeBatchAccount(readAccount(ledger, batch.batch).data);

  // Then leaves_published follows, and the batch is not complete yet
  assert.equal(afterFirst.leavesPublished, 4);
  assert.equal(afterSecond.leavesPublished, 7);
  assert.equal(afterSecond.isComplete, false);
  assert.equal(afterSecond.leaves.length, 7);
});

test("a final chunk whose leaves do not give the signed root fails with MerkleRootMismatch and stores nothing", async () => {
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

test("a one-chunk batch published with a wrong leaf fails with MerkleRootMismatch and stays empty", async () => {
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

  // Then it fails with MerkleRootMismatch and nothing is stored
  expectProgramError(outcome, ABAS_PROGRAM__MERKLE_ROOT_MISMATCH);
  assert.deepEqual(readAccount(ledger, batch.batch), before);
  assert.equal(decodeBatchAccount(before.data).leavesPublished, 0);
});

test("a chunk may rewrite earlier leaves before the batch is complete", async () => {
  // Given a batch of 8 whose first 6 leaves were published with a mistake at index 2
  const { ledger, registered, batch } = await arrangeBatch(8);
  const mistaken = batch.leaves.slice(0, 6).map((leaf, i) => (i === 2 ? withOtherHash(leaf) : leaf));
  expectSuccess(await publish(ledger, registered, batch, 0, mistaken));

  // When the operator republishes from index 2 to the end
  const outcome = await publish(ledger, registered, batch, 2, batch.leaves.slice(2, 8));

  // Then the batch completes with the right leaves
  expectSuccess(outcome);
  const decoded = decodeBatchAccount(readAccount(ledger, batch.batch).data);
  assert.equal(decoded.isComplete, true);
  assert.deepEqual(
    Uint8Array.from(decoded.leaves[2]!.storedHash),
    Uint8Array.from(batch.leaves[2]!.storedHash),
  );
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

  // When the operator publishes the same leaves again
  const outcome = await publish(ledger, registered, batch, 0, batch.leaves);

  // Then it fails with BatchAlreadyComplete and nothing changes
  expectProgramError(outcome, ABAS_PROGRAM__BATCH_ALREADY_COMPLETE);
  assert.deepEqual(readAccount(ledger, batch.batch), complete);
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
  const instruction = await buildPublishLeaves(ledger, {
    operator: registered.operator,
    agent: registered.agent.address,
    merkleRoot: batch.merkleRoot,
    startIndex: 0,
    leaves: batch.leaves.slice(0, 1),
  });
  const data = encodePublishBatchLeavesInstructionData({ startIndex: 0, leaves: raw });
  expectProgramError(
    await send(ledger, [withData(instruction, data)]),
    ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED,
  );
});

test("a leaf with privacy flag 2 fails with InvalidPrivacyFlag", async () => {
  // Given a committed batch
  const { ledger, registered, batch } = await arrangeBatch(3, randomLeaves(3, [ActionType.ToolCall]));
  const instruction = await buildPublishLeaves(ledger, {
    operator: registered.operator,
    agent: registered.agent.address,
    merkleRoot: batch.merkleRoot,
    startIndex: 0,
    leaves: batch.leaves.slice(0, 1),
  });

  // When a leaf's privacy flag byte is 2
  const raw: RawLeafData[] = [{ actionType: ActionType.ToolCall, privacyMode: 2, storedHash: randomHash() }];
  const data = encodePublishBatchLeavesInstructionData({ startIndex: 0, leaves: raw });
  const outcome = await send(ledger, [withData(instruction, data)]);

  // Then it fails with InvalidPrivacyFlag
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_PRIVACY_FLAG);
});

test("leaf data that does not match leaf_count fails with InvalidInstructionData", async () => {
  // Given a chunk that announces 2 leaves but carries 1
  const { ledger, registered, batch } = await arrangeBatch(3);
  const instruction = await buildPublishLeaves(ledger, {
    operator: registered.operator,
    agent: registered.agent.address,
    merkleRoot: batch.merkleRoot,
    startIndex: 0,
    leaves: batch.leaves.slice(0, 1),
  });
  const data = encodePublishBatchLeavesInstructionData({ startIndex: 0, leaves: batch.leaves.slice(0, 1) });
  data[2] = 2;

  // When it is sent
  const outcome = await send(ledger, [withData(instruction, data)]);

  // Then it fails with InvalidInstructionData
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_INSTRUCTION_DATA);
});

test("publish_batch_leaves by another operator fails with NotAgentOperator", async () => {
  // Given a committed batch and an operator that is not the agent's
  const { ledger, registered, batch } = await arrangeBatch(3);
  const stranger = await createOperator(ledger);

  // When the stranger publishes its leaves
  const outcome = await publish(ledger, { ...registered, operator: stranger }, batch, 0, batch.leaves);

  // Then it fails with NotAgentOperator
  expectProgramError(outcome, ABAS_PROGRAM__NOT_AGENT_OPERATOR);
});

test("publish_batch_leaves where the operator does not sign fails with MissingRequiredSignature", async () => {
  // Given a chunk that lists the operator without its signature
  const { ledger, registered, batch } = await arrangeBatch(3);
  const instruction = await buildPublishLeaves(ledger, {
    operator: registered.operator,
    agent: registered.agent.address,
    merkleRoot: batch.merkleRoot,
    startIndex: 0,
    leaves: batch.leaves,
  });

  // When someone else sends it
  const outcome = await send(ledger, [
    withAccount(instruction, 0, { address: registered.operator.address, role: AccountRole.READONLY }),
  ]);

  // Then it fails with MissingRequiredSignature
  expectProgramError(outcome, ABAS_PROGRAM__MISSING_REQUIRED_SIGNATURE);
});

test("publishing a batch of another agent through this agent's account fails with AgentMismatch", async () => {
  // Given two agents of one operator, and a batch committed by agent B
  const { ledger, registered: agentA } = await arrangeBatch(2);
  const agentB = await registerAgent(ledger, { operator: agentA.operator });
  const batchOfB = await attestBatch(ledger, { ...agentB, leaves: randomLeaves(3) });
  const instruction = await buildPublishLeaves(ledger, {
    operator: agentB.operator,
    agent: agentB.agent.address,
    merkleRoot: batchOfB.merkleRoot,
    startIndex: 0,
    leaves: batchOfB.leaves,
  });

  // When the operator publishes B's leaves passing A's agent account
  const outcome = await send(ledger, [
    withAccount(instruction, 1, { address: agentA.agentAccount, role: AccountRole.READONLY }),
  ]);

  // Then it fails with AgentMismatch
  expectProgramError(outcome, ABAS_PROGRAM__AGENT_MISMATCH);
});

test("publish_batch_leaves with the BehaviorAttestation Schema fails with InvalidSchema", async () => {
  // Given a committed batch
  const { ledger, registered, batch } = await arrangeBatch(2);
  const instruction = await buildPublishLeaves(ledger, {
    operator: registered.operator,
    agent: registered.agent.address,
    merkleRoot: batch.merkleRoot,
    startIndex: 0,
    leaves: batch.leaves,
  });

  // When the single-attestation Schema is passed
  const outcome = await send(ledger, [
    withAccount(instruction, 3, { address: ledger.attestationSchema, role: AccountRole.READONLY }),
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

for (const itemCount of [1, 2, 3, 7, 64, 65]) {
  test(`a batch of ${itemCount} leaves completes: the program's tree matches the signed root`, async () => {
    // Given a committed batch of ${itemCount} (tree shapes: single leaf, powers of two and carried nodes)
    const { ledger, registered, batch } = await arrangeBatch(itemCount);

    // When the operator publishes every leaf
    await publishAllLeaves(ledger, { ...registered, agent: registered.agent.address, batch });

    // Then the batch is complete
    const decoded = decodeBatchAccount(readAccount(ledger, batch.batch).data);
    assert.equal(decoded.isComplete, true);
    assert.equal(decoded.leaves.length, itemCount);
  });
}

test("a rewriting chunk sets leaves_published to its own end, even below the previous count", async () => {
  // Given a batch of 6 with 5 leaves published
  const { ledger, registered, batch } = await arrangeBatch(6);
  expectSuccess(await publish(ledger, registered, batch, 0, batch.leaves.slice(0, 5)));

  // When the operator republishes leaves 1..3
  expectSuccess(await publish(ledger, registered, batch, 1, batch.leaves.slice(1, 3)));

  // Then leaves_published = start_index + leaf_count = 3
  assert.equal(decodeBatchAccount(readAccount(ledger, batch.batch).data).leavesPublished, 3);
});

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
    const instruction = await buildPublishLeaves(ledger, {
      operator: registered.operator,
      agent: registered.agent.address,
      merkleRoot: batch.merkleRoot,
      startIndex: 0,
      leaves: batch.leaves,
    });
    const impostor = pick({ attestation: single.attestation, agentAccount: registered.agentAccount });
    const before = readAccount(ledger, impostor);

    // When it is sent
    const outcome = await send(ledger, [
      withAccount(instruction, 2, { address: impostor, role: AccountRole.WRITABLE }),
    ]);

    // Then it fails with InvalidAccountData and that account is untouched
    expectProgramError(outcome, ABAS_PROGRAM__INVALID_ACCOUNT_DATA);
    assert.deepEqual(readAccount(ledger, impostor), before);
  });
}
