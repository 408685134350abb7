/**
 * The attacks of an outside review, which passed non-canonical PDA bumps to record one signature
 * at many addresses, revive a revoked agent, squat agent keys and batches, and break or duplicate
 * a deployment's `initialize`. Each is refused with a named code; then one test per PDA kind shows
 * a non-canonical bump refused. Addresses at other bumps are computed as an attacker would
 * (`pda-bumps.ts`), independently of the client's derivation.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ABAS_PROGRAM__AGENT_ALREADY_REGISTERED,
  ABAS_PROGRAM__DUPLICATE_ATTESTATION,
  ABAS_PROGRAM__DUPLICATE_BATCH,
  ABAS_PROGRAM__LEAF_INDEX_OUT_OF_ORDER,
  ABAS_PROGRAM__NON_CANONICAL_BUMP,
  ABAS_PROGRAM__NOT_AGENT_OPERATOR,
  ABAS_PROGRAM__NOT_UPGRADE_AUTHORITY,
} from "@abas/errors";
import {
  AgentStatus,
  buildInitializeInstruction,
  buildRegisterAgentInstruction,
  decodeAgentAccount,
  SCHEMAS,
} from "@abas/program-client";
import { AccountRole, getAddressEncoder, type Address, type Instruction } from "@solana/kit";

import {
  attest,
  buildSignedAttest,
  buildSignedBatch,
  createAgent,
  createFundedSigner,
  createOperator,
  createTestLedger,
  expectProgramError,
  expectSuccess,
  getAccount,
  publishLeaves,
  randomLeaves,
  readAccount,
  registerAgent,
  send,
  updateAgent,
  withAccount,
  withData,
  type TestLedger,
} from "./harness.js";
import { accountPosition, dataOffset } from "./idl-positions.js";
import { nonCanonicalAddresses, validBumps, type BumpedAddress, type Seed } from "./pda-bumps.js";

const bytesOf = (address: Address) => Uint8Array.from(getAddressEncoder().encode(address));

/** `instruction` moved to another address of the same seeds: that account and its bump byte. */
function atBump(
  instruction: Instruction,
  at: { account: number; bumpByte: number },
  target: BumpedAddress,
): Instruction {
  const data = Uint8Array.from(instruction.data!);
  data[at.bumpByte] = target.bump;
  const meta = { address: target.address, role: AccountRole.WRITABLE };
  return withData(withAccount(instruction, at.account, meta), data);
}

/** Where the account and its bump hint sit in `instruction`, by their IDL names. */
const positionOf = (instruction: string, account: string, bump: string) => ({
  account: accountPosition(instruction, account),
  bumpByte: dataOffset(instruction, bump),
});
const ATTESTATION = positionOf("attest", "attestation", "attestationBump");
const BATCH = positionOf("attestBatch", "batch", "batchBump");
const AGENT_ACCOUNT = positionOf("registerAgent", "agentAccount", "agentAccountBump");
const CREDENTIAL = positionOf("initialize", "credential", "credentialBump");
const ATTESTATION_SCHEMA = positionOf("initialize", "attestationSchema", "attestationSchemaBump");
const BATCH_SCHEMA = positionOf("initialize", "batchSchema", "batchSchemaBump");

const schemaSeeds = (ledger: TestLedger, kind: "attestation" | "batch"): Seed[] => [
  "schema",
  bytesOf(ledger.credential),
  SCHEMAS[kind].name,
  Uint8Array.of(SCHEMAS[kind].version),
];

async function registerAt(
  ledger: TestLedger,
  operator: Awaited<ReturnType<typeof createOperator>>,
  agent: Awaited<ReturnType<typeof createAgent>>,
  target?: BumpedAddress,
) {
  const instruction = await buildRegisterAgentInstruction({
    programId: ledger.programId,
    operator,
    agent,
    allowedActionTypes: 0b1111,
  });
  return await send(ledger, [target ? atBump(instruction, AGENT_ACCOUNT, target) : instruction]);
}

/** Sends a signed record instruction at `count` other bumps of its seeds: each must be refused. */
async function expectRefusedAtOtherBumps(
  ledger: TestLedger,
  [precompile, record]: [Instruction, Instruction],
  at: { account: number; bumpByte: number },
  seeds: Seed[],
  count: number,
): Promise<void> {
  for (const target of nonCanonicalAddresses(ledger.programId, seeds, count)) {
    const outcome = await send(ledger, [precompile, atBump(record, at, target)]);
    expectProgramError(outcome, ABAS_PROGRAM__NON_CANONICAL_BUMP);
    assert.equal(getAccount(ledger, target.address), undefined, `nothing is created at bump ${target.bump}`);
  }
}

test("attack 1: one signed attest message is recorded once; at 9 other bumps it fails with NonCanonicalBump", async () => {
  // Given an agent's signed attest message (precompile instruction + attest)
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger);
  const signed = await buildSignedAttest(ledger, registered);
  const [precompile, attestIx] = signed.instructions;
  const seeds = ["attestation", bytesOf(registered.agent.address), signed.storedHash];

  // When the same signed message is sent to 9 non-canonical addresses of its seeds
  // Then each fails with NonCanonicalBump and creates nothing
  await expectRefusedAtOtherBumps(ledger, [precompile, attestIx], ATTESTATION, seeds, 9);

  // And at the canonical address it is recorded once, and a second time is a duplicate
  expectSuccess(await send(ledger, signed.instructions));
  expectProgramError(await send(ledger, signed.instructions), ABAS_PROGRAM__DUPLICATE_ATTESTATION);
  const agent = decodeAgentAccount(readAccount(ledger, registered.agentAccount).data);
  assert.equal(agent.attestationCount, 1n);
});

test("attack 2: one signed batch message is recorded once; at 5 other bumps it fails with NonCanonicalBump", async () => {
  // Given an agent's signed commitment to 100 items
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger);
  const signed = await buildSignedBatch(ledger, { ...registered, leaves: randomLeaves(100) });
  const [precompile, commitIx] = signed.instructions;
  const seeds = ["batch", bytesOf(registered.agent.address), signed.merkleRoot];

  // When it is sent to 5 non-canonical addresses of its seeds
  // Then each fails with NonCanonicalBump and creates nothing
  await expectRefusedAtOtherBumps(ledger, [precompile, commitIx], BATCH, seeds, 5);

  // And it is recorded once at the canonical address: 100 items, not 500
  expectSuccess(await send(ledger, signed.instructions));
  expectProgramError(await send(ledger, signed.instructions), ABAS_PROGRAM__DUPLICATE_BATCH);
  const agent = decodeAgentAccount(readAccount(ledger, registered.agentAccount).data);
  assert.equal(agent.batchItemCount, 100n);
});

test("attack 3: revocation is final; a thief with the agent key cannot register it again anywhere", async () => {
  // Given an agent revoked by its operator, and a second operator holding the (stolen) agent key
  const ledger = await createTestLedger();
  const victim = await registerAgent(ledger);
  await updateAgent(ledger, victim, { status: AgentStatus.Revoked });
  const thief = await createOperator(ledger);
  const agentSeeds = ["agent", bytesOf(victim.agent.address)];

  // When the thief registers the key at its canonical address, then at 5 other bumps
  const canonical = await registerAt(ledger, thief, victim.agent);
  const elsewhere = [];
  for (const target of nonCanonicalAddresses(ledger.programId, agentSeeds, 5)) {
    elsewhere.push({ target, outcome: await registerAt(ledger, thief, victim.agent, target) });
  }

  // Then the canonical address is taken (AgentAlreadyRegistered), every other bump is refused
  // (NonCanonicalBump), and the key has exactly one Agent account: the revoked one
  expectProgramError(canonical, ABAS_PROGRAM__AGENT_ALREADY_REGISTERED);
  for (const { target, outcome } of elsewhere) {
    expectProgramError(outcome, ABAS_PROGRAM__NON_CANONICAL_BUMP);
    assert.equal(getAccount(ledger, target.address), undefined);
  }
  const agent = decodeAgentAccount(readAccount(ledger, victim.agentAccount).data);
  assert.equal(agent.status, AgentStatus.Revoked);
  assert.equal(agent.operator, victim.operator.address);

  // And attesting through the revoked account as the thief fails: it is not the thief's agent
  const signed = await buildSignedAttest(ledger, { operator: thief, agent: victim.agent });
  expectProgramError(await send(ledger, signed.instructions), ABAS_PROGRAM__NOT_AGENT_OPERATOR);
  assert.equal(getAccount(ledger, signed.attestation), undefined);
});

test("attack 4: no squatting of an agent key, a broadcast precompile instruction or a batch's leaves", async () => {
  // Given operator B holding agent key K, before and after operator A registers K
  const ledger = await createTestLedger();
  const agent = await createAgent();
  const [operatorA, operatorB] = [await createOperator(ledger), await createOperator(ledger)];
  const [squatBefore, squatAfter] = nonCanonicalAddresses(
    ledger.programId,
    ["agent", bytesOf(agent.address)],
    2,
  );

  // When B registers K at another bump before A registers it, and again after
  const before = await registerAt(ledger, operatorB, agent, squatBefore);
  const registered = await registerAgent(ledger, { operator: operatorA, agent });
  const after = await registerAt(ledger, operatorB, agent, squatAfter);

  // Then both fail with NonCanonicalBump
  expectProgramError(before, ABAS_PROGRAM__NON_CANONICAL_BUMP);
  expectProgramError(after, ABAS_PROGRAM__NON_CANONICAL_BUMP);

  // When B replays the precompile instruction of A's broadcast attest with itself as operator
  const broadcast = await buildSignedAttest(ledger, registered);
  const [precompile, attestIx] = broadcast.instructions;
  const replayed = withAccount(attestIx, 0, {
    address: operatorB.address,
    role: AccountRole.WRITABLE_SIGNER,
    signer: operatorB,
  } as never);
  const replay = await send(ledger, [precompile, replayed]);

  // Then it fails with NotAgentOperator, and A's own transaction lands with A as operator
  expectProgramError(replay, ABAS_PROGRAM__NOT_AGENT_OPERATOR);
  expectSuccess(await send(ledger, broadcast.instructions));

  // When B publishes leaves, right or wrong, into A's batch, and A tries to rewrite published ones
  const batch = await buildSignedBatch(ledger, { ...registered, leaves: randomLeaves(6) });
  expectSuccess(await send(ledger, batch.instructions));
  const chunk = (
    operator: typeof operatorA,
    startIndex: number,
    leaves = batch.leaves.slice(startIndex, 4),
  ) =>
    publishLeaves(ledger, {
      operator,
      agent: agent.address,
      merkleRoot: batch.merkleRoot,
      startIndex,
      leaves,
    });
  const byB = await chunk(operatorB, 0);
  expectSuccess(await chunk(operatorA, 0));
  const rewrite = await chunk(operatorA, 1, randomLeaves(3));

  // Then B's fails with NotAgentOperator and A's rewrite with LeafIndexOutOfOrder
  expectProgramError(byB, ABAS_PROGRAM__NOT_AGENT_OPERATOR);
  expectProgramError(rewrite, ABAS_PROGRAM__LEAF_INDEX_OUT_OF_ORDER);
});

test("attack 5: initialize runs once, by the upgrade authority, at canonical addresses only", async () => {
  // Given a fresh deployment, a griefer, and the canonical credential with non-canonical schema bumps
  const ledger = await createTestLedger({ initialize: false });
  const griefer = await createFundedSigner(ledger);
  const [attestationSchema] = nonCanonicalAddresses(ledger.programId, schemaSeeds(ledger, "attestation"), 1);
  const [batchSchema] = nonCanonicalAddresses(ledger.programId, schemaSeeds(ledger, "batch"), 1);
  const grief = (instruction: Instruction) =>
    atBump(atBump(instruction, ATTESTATION_SCHEMA, attestationSchema!), BATCH_SCHEMA, batchSchema!);

  // When the griefer front-runs the deployer's initialize with those schema bumps
  const frontRun = await send(
    ledger,
    [grief(await buildInitializeInstruction({ programId: ledger.programId, authority: griefer }))],
    [],
    { feePayer: griefer },
  );
  // And when even the upgrade authority sends them
  const byAuthority = await send(ledger, [
    grief(await buildInitializeInstruction({ programId: ledger.programId, authority: ledger.payer })),
  ]);

  // Then the griefer fails with NotUpgradeAuthority and the authority with NonCanonicalBump
  expectProgramError(frontRun, ABAS_PROGRAM__NOT_UPGRADE_AUTHORITY);
  expectProgramError(byAuthority, ABAS_PROGRAM__NON_CANONICAL_BUMP);

  // And the deployment is not broken: the authority initializes it, and agents attest
  expectSuccess(
    await send(ledger, [
      await buildInitializeInstruction({ programId: ledger.programId, authority: ledger.payer }),
    ]),
  );
  const registered = await registerAgent(ledger);
  await attest(ledger, registered);

  // When anyone, then the authority, initializes again with a second credential at another bump
  const [secondCredential] = nonCanonicalAddresses(ledger.programId, ["credential"], 1);
  const second = async (authority: typeof griefer) =>
    await send(
      ledger,
      [
        atBump(
          await buildInitializeInstruction({ programId: ledger.programId, authority }),
          CREDENTIAL,
          secondCredential!,
        ),
      ],
      [],
      { feePayer: authority },
    );
  const byGriefer = await second(griefer);
  const bySelf = await second(ledger.payer);

  // Then neither creates a second credential
  expectProgramError(byGriefer, ABAS_PROGRAM__NOT_UPGRADE_AUTHORITY);
  expectProgramError(bySelf, ABAS_PROGRAM__NON_CANONICAL_BUMP);
  assert.equal(getAccount(ledger, secondCredential!.address), undefined);
});

// One test per kind of PDA: the first non-canonical bump of its seeds is refused.
const PDA_KINDS: readonly {
  kind: string;
  /** The instruction that creates it, at its canonical address, on a ledger arranged for it. */
  arrange: (ledger: TestLedger) => Promise<{ instruction: Instruction[]; seeds: Seed[] }>;
  at: { account: number; bumpByte: number };
  initialize?: false;
}[] = [
  {
    kind: "Credential",
    initialize: false,
    at: CREDENTIAL,
    arrange: async (ledger) => ({
      instruction: [
        await buildInitializeInstruction({ programId: ledger.programId, authority: ledger.payer }),
      ],
      seeds: ["credential"],
    }),
  },
  {
    kind: "BehaviorAttestation Schema",
    initialize: false,
    at: ATTESTATION_SCHEMA,
    arrange: async (ledger) => ({
      instruction: [
        await buildInitializeInstruction({ programId: ledger.programId, authority: ledger.payer }),
      ],
      seeds: schemaSeeds(ledger, "attestation"),
    }),
  },
  {
    kind: "BehaviorBatch Schema",
    initialize: false,
    at: BATCH_SCHEMA,
    arrange: async (ledger) => ({
      instruction: [
        await buildInitializeInstruction({ programId: ledger.programId, authority: ledger.payer }),
      ],
      seeds: schemaSeeds(ledger, "batch"),
    }),
  },
  {
    kind: "Agent",
    at: AGENT_ACCOUNT,
    arrange: async (ledger) => {
      const operator = await createOperator(ledger);
      const agent = await createAgent();
      const instruction = await buildRegisterAgentInstruction({
        programId: ledger.programId,
        operator,
        agent,
        allowedActionTypes: 1,
      });
      return { instruction: [instruction], seeds: ["agent", bytesOf(agent.address)] };
    },
  },
  {
    kind: "BehaviorAttestation",
    at: ATTESTATION,
    arrange: async (ledger) => {
      const registered = await registerAgent(ledger);
      const signed = await buildSignedAttest(ledger, registered);
      return {
        instruction: signed.instructions,
        seeds: ["attestation", bytesOf(registered.agent.address), signed.storedHash],
      };
    },
  },
  {
    kind: "BehaviorBatch",
    at: BATCH,
    arrange: async (ledger) => {
      const registered = await registerAgent(ledger);
      const signed = await buildSignedBatch(ledger, { ...registered, leaves: randomLeaves(3) });
      return {
        instruction: signed.instructions,
        seeds: ["batch", bytesOf(registered.agent.address), signed.merkleRoot],
      };
    },
  },
];

for (const { kind, arrange, at, initialize } of PDA_KINDS) {
  test(`the ${kind} account at a non-canonical bump fails with NonCanonicalBump; the canonical one is created`, async () => {
    // Given the instruction that creates a ${kind} account, and the next valid bump below the canonical one
    const ledger = await createTestLedger(initialize === false ? { initialize: false } : {});
    const { instruction, seeds } = await arrange(ledger);
    const [canonical, next] = validBumps(ledger.programId, seeds);
    const programIx = instruction.at(-1)!;
    assert.equal(
      programIx.accounts![at.account]!.address,
      canonical!.address,
      "the client derives the canonical PDA",
    );

    // When the instruction names the address at the lower bump
    const outcome = await send(ledger, [...instruction.slice(0, -1), atBump(programIx, at, next!)]);

    // Then it fails with NonCanonicalBump and nothing is created there
    expectProgramError(outcome, ABAS_PROGRAM__NON_CANONICAL_BUMP);
    assert.equal(getAccount(ledger, next!.address), undefined);

    // And the instruction as the client built it succeeds
    expectSuccess(await send(ledger, instruction));
    assert.equal(readAccount(ledger, canonical!.address).owner, ledger.programId);
  });
}
