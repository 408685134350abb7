/**
 * Random instructions against the program: every one must fail with one of the program's own
 * error codes, never a panic, an aborted program or another error. One instruction per
 * transaction, so each result belongs to exactly one input. Reproducible: every key, hash and byte
 * comes from a PRNG seeded by FUZZ_SEED (printed at the start of the run).
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { ABAS_PROGRAM__NON_CANONICAL_BUMP, getProgramErrorName, isProgramErrorCode } from "@abas/errors";
import {
  AgentStatus,
  BPF_LOADER_UPGRADEABLE_ADDRESS,
  buildInitializeInstruction,
  buildPublishBatchLeavesInstruction,
  buildRegisterAgentInstruction,
  deriveAgentAddress,
  ED25519_PROGRAM_ADDRESS,
  INSTRUCTIONS_SYSVAR_ADDRESS,
  SYSTEM_PROGRAM_ADDRESS,
} from "@abas/program-client";
import {
  AccountRole,
  address,
  getAddressDecoder,
  getAddressEncoder,
  lamports,
  type AccountMeta,
  type AccountSignerMeta,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";

import { leavesFrom, Prng, signerFrom } from "./prng.js";
import {
  attest,
  attestBatch,
  buildSignedAttest,
  buildSignedBatch,
  createTestLedger,
  instructionFailureOf,
  isFailure,
  logsOf,
  publishAllLeaves,
  publishLeaves,
  registerAgent,
  send,
  updateAgent,
  LAMPORTS_PER_SOL,
  type TestLedger,
} from "./harness.js";
import { nonCanonicalAddresses, type BumpedAddress } from "./pda-bumps.js";

const ITERATIONS = Number(process.env.FUZZ_ITERATIONS ?? 10_000);
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) >>> 0 : randomSeed();
const MAX_DATA_LENGTH = 400;

function randomSeed(): number {
  return crypto.getRandomValues(new Uint32Array(1))[0]!;
}

interface PoolAccount {
  readonly address: Address;
  /** Programs and sysvars are only ever passed read-only. */
  readonly readonlyOnly: boolean;
}

type Meta = AccountMeta | AccountSignerMeta;

/** One fuzz input: instructions that go before it (an Ed25519 precompile), then ours. */
interface FuzzInput {
  readonly before: readonly Instruction[];
  readonly data: Uint8Array;
  readonly accounts: Meta[];
}

interface FuzzWorld {
  readonly ledger: TestLedger;
  readonly feePayer: KeyPairSigner;
  readonly pool: readonly PoolAccount[];
  /** The canonical account lists of each instruction, as the fee payer (the only signer) would send them. */
  readonly templates: readonly (readonly Address[])[][];
  /** The agent accounts the fee payer operates: a valid update_agent of one of them would succeed. */
  readonly feePayerAgents: ReadonlySet<Address>;
  /** Known attacks (non-canonical bumps, replays, foreign batches) that inputs are mutated from. */
  readonly seeds: readonly FuzzInput[];
}

/**
 * State to aim at: a foreign operator with an active and a suspended agent, an attestation, a
 * complete and an incomplete batch; the fee payer operating an active agent with a narrow policy
 * whose only batch is complete (so no random chunk can complete anything), a suspended one, and
 * itself as an agent (so no register_agent of its own key can succeed).
 */
async function buildWorld(prng: Prng): Promise<FuzzWorld> {
  const feePayer = await signerFrom(prng);
  const ledger = await createTestLedger({ payer: feePayer, program: await signerFrom(prng) });
  const fund = async () => {
    const signer = await signerFrom(prng);
    ledger.svm.airdrop(signer.address, lamports(100n * LAMPORTS_PER_SOL));
    return signer;
  };

  const foreignOperator = await fund();
  const agentA = await registerAgent(ledger, { operator: foreignOperator, agent: await signerFrom(prng) });
  const agentB = await registerAgent(ledger, { operator: foreignOperator, agent: await signerFrom(prng) });
  await updateAgent(ledger, agentB, { status: AgentStatus.Suspended });
  const attestationA = await attest(ledger, { ...agentA, storedHash: prng.bytes(32) });
  const completeA = await attestBatch(ledger, { ...agentA, leaves: leavesFrom(prng, 5) });
  await publishAllLeaves(ledger, {
    operator: foreignOperator,
    agent: agentA.agent.address,
    batch: completeA,
  });
  const partialA = await attestBatch(ledger, { ...agentA, leaves: leavesFrom(prng, 12) });
  await publishLeaves(ledger, {
    operator: foreignOperator,
    agent: agentA.agent.address,
    merkleRoot: partialA.merkleRoot,
    startIndex: 0,
    leaves: partialA.leaves.slice(0, 4),
  });

  const agentC = await registerAgent(ledger, {
    operator: feePayer,
    agent: await signerFrom(prng),
    allowedActionTypes: 0b0101,
  });
  const attestationC = await attest(ledger, { ...agentC, actionType: 2, storedHash: prng.bytes(32) });
  const completeC = await attestBatch(ledger, {
    ...agentC,
    leaves: leavesFrom(prng, 3).map((leaf, i) => ({ ...leaf, actionType: i % 2 === 0 ? 0 : 2 })),
  });
  await publishAllLeaves(ledger, { operator: feePayer, agent: agentC.agent.address, batch: completeC });
  const agentD = await registerAgent(ledger, { operator: feePayer, agent: await signerFrom(prng) });
  await updateAgent(ledger, agentD, { status: AgentStatus.Suspended });
  const agentF = await registerAgent(ledger, {
    operator: feePayer,
    agent: feePayer,
    allowedActionTypes: 0b0010,
  });

  const randomAddress = () => getAddressDecoder().decode(prng.bytes(32));
  const unregisteredAgentAccount = (await deriveAgentAddress(ledger.programId, randomAddress())).address;
  const writable = (a: Address): PoolAccount => ({ address: a, readonlyOnly: false });
  const fixed = (a: Address): PoolAccount => ({ address: a, readonlyOnly: true });
  const pool: PoolAccount[] = [
    writable(ledger.credential),
    writable(ledger.attestationSchema),
    writable(ledger.batchSchema),
    writable(agentA.agentAccount),
    writable(agentB.agentAccount),
    writable(agentC.agentAccount),
    writable(agentD.agentAccount),
    writable(attestationA.attestation),
    writable(attestationC.attestation),
    writable(completeA.batch),
    writable(partialA.batch),
    writable(completeC.batch),
    writable(unregisteredAgentAccount),
    writable(foreignOperator.address),
    writable(agentA.agent.address),
    writable(agentC.agent.address),
    fixed(SYSTEM_PROGRAM_ADDRESS),
    fixed(INSTRUCTIONS_SYSVAR_ADDRESS),
    fixed(address("SysvarC1ock11111111111111111111111111111111")),
    fixed(address("SysvarRent111111111111111111111111111111111")),
    fixed(ED25519_PROGRAM_ADDRESS),
    fixed(BPF_LOADER_UPGRADEABLE_ADDRESS),
    fixed(ledger.programId),
    ...Array.from({ length: 5 }, () => writable(randomAddress())),
  ];

  const F = feePayer.address;
  const { credential, attestationSchema, batchSchema } = ledger;
  const sysvar = INSTRUCTIONS_SYSVAR_ADDRESS;
  const system = SYSTEM_PROGRAM_ADDRESS;
  const programData = ledger.deployment.programData;
  const templates: Address[][][] = [
    [[F, credential, attestationSchema, batchSchema, programData, system]],
    [
      [F, F, unregisteredAgentAccount, system],
      [F, F, agentC.agentAccount, system],
    ],
    [
      [F, agentC.agentAccount],
      [F, agentA.agentAccount],
      [F, agentD.agentAccount],
    ],
    [
      [F, agentC.agentAccount, attestationC.attestation, credential, attestationSchema, sysvar, system],
      [F, agentC.agentAccount, randomAddress(), credential, attestationSchema, sysvar, system],
      [F, agentA.agentAccount, attestationA.attestation, credential, attestationSchema, sysvar, system],
      [F, agentD.agentAccount, randomAddress(), credential, attestationSchema, sysvar, system],
    ],
    [
      [F, agentC.agentAccount, completeC.batch, credential, batchSchema, sysvar, system],
      [F, agentC.agentAccount, randomAddress(), credential, batchSchema, sysvar, system],
      [F, agentD.agentAccount, randomAddress(), credential, batchSchema, sysvar, system],
    ],
    [
      [F, completeC.batch, batchSchema],
      [F, partialA.batch, batchSchema],
      [F, completeA.batch, batchSchema],
      [F, attestationC.attestation, batchSchema],
    ],
  ];
  return {
    ledger,
    feePayer,
    pool,
    templates,
    feePayerAgents: new Set([agentC.agentAccount, agentD.agentAccount, agentF.agentAccount]),
    seeds: await attackSeeds(ledger, feePayer, {
      signedAttest: await buildSignedAttest(ledger, {
        ...agentC,
        actionType: 2,
        storedHash: attestationC.storedHash,
      }),
      signedBatch: await buildSignedBatch(ledger, { ...agentC, leaves: completeC.leaves }),
      completeBatch: completeC,
      foreignBatch: partialA,
      foreignAgent: agentA.agent.address,
    }),
  };
}

const toMeta = (meta: NonNullable<Instruction["accounts"]>[number]): Meta => ({ ...meta }) as Meta;
const asInput = (instructions: readonly Instruction[]): FuzzInput => {
  const ours = instructions.at(-1)!;
  return {
    before: instructions.slice(0, -1),
    data: Uint8Array.from(ours.data!),
    accounts: ours.accounts!.map(toMeta),
  };
};

/** `input` with its account `index` moved to another bump of the same seeds (and the bump byte at `bumpByte`). */
function movedTo(input: FuzzInput, index: number, bumpByte: number, target: BumpedAddress): FuzzInput {
  const data = Uint8Array.from(input.data);
  data[bumpByte] = target.bump;
  const accounts = input.accounts.map((meta, i) =>
    i === index ? { address: target.address, role: meta.role } : meta,
  );
  return { ...input, data, accounts: accounts as Meta[] };
}

/**
 * The outside review's attacks, as inputs the fuzzer mutates: records at other bumps of their
 * seeds (already recorded at the canonical one, so no mutation can succeed), initialize with
 * other bumps, the fee payer's key registered at another bump, chunks into a foreign or a complete
 * batch.
 */
async function attackSeeds(
  ledger: TestLedger,
  feePayer: KeyPairSigner,
  targets: {
    signedAttest: Awaited<ReturnType<typeof buildSignedAttest>>;
    signedBatch: Awaited<ReturnType<typeof buildSignedBatch>>;
    completeBatch: Awaited<ReturnType<typeof buildSignedBatch>>;
    foreignBatch: Awaited<ReturnType<typeof buildSignedBatch>>;
    foreignAgent: Address;
  },
): Promise<FuzzInput[]> {
  const { programId } = ledger;
  const bytesOf = (a: Address) => Uint8Array.from(getAddressEncoder().encode(a));
  const agentKey = getAddressDecoder().decode(targets.signedAttest.message.subarray(46, 78));
  const [attestationElsewhere] = nonCanonicalAddresses(
    programId,
    ["attestation", bytesOf(agentKey), targets.signedAttest.storedHash],
    1,
  );
  const [batchElsewhere] = nonCanonicalAddresses(
    programId,
    ["batch", bytesOf(agentKey), targets.signedBatch.merkleRoot],
    1,
  );
  const [credentialElsewhere] = nonCanonicalAddresses(programId, ["credential"], 1);
  const [feePayerAgentElsewhere] = nonCanonicalAddresses(programId, ["agent", bytesOf(feePayer.address)], 1);
  const initialize = asInput([await buildInitializeInstruction({ programId, authority: feePayer })]);
  const register = asInput([
    await buildRegisterAgentInstruction({
      programId,
      operator: feePayer,
      agent: feePayer,
      allowedActionTypes: 1,
    }),
  ]);
  const chunk = async (batch: typeof targets.completeBatch, agent: Address) =>
    asInput([
      await buildPublishBatchLeavesInstruction({
        programId,
        operator: feePayer,
        agent,
        merkleRoot: batch.merkleRoot,
        startIndex: 0,
        leaves: batch.leaves.slice(0, 3),
      }),
    ]);
  return [
    movedTo(asInput(targets.signedAttest.instructions), 2, 3, attestationElsewhere!),
    asInput(targets.signedAttest.instructions),
    movedTo(asInput(targets.signedBatch.instructions), 2, 3, batchElsewhere!),
    asInput(targets.signedBatch.instructions),
    movedTo(initialize, 1, 1, credentialElsewhere!),
    initialize,
    movedTo(register, 2, 1, feePayerAgentElsewhere!),
    register,
    await chunk(targets.foreignBatch, targets.foreignAgent),
    await chunk(targets.completeBatch, agentKey),
  ];
}

/** The data lengths each instruction accepts (publish_batch_leaves: 3 + 34 × leaf_count). */
function exactLength(prng: Prng, discriminator: number): number {
  switch (discriminator) {
    case 0:
      return 5;
    case 1:
    case 2:
      return 3;
    case 3:
    case 4:
      return 36;
    default:
      return 3 + 34 * (1 + prng.int(11));
  }
}

function randomData(prng: Prng): Uint8Array {
  if (prng.chance(0.1)) return prng.bytes(prng.int(MAX_DATA_LENGTH + 1));
  const discriminator = prng.chance(0.95) ? prng.int(6) : prng.int(256);
  const roll = prng.int(10);
  const length =
    roll < 7
      ? exactLength(prng, discriminator)
      : roll < 9
        ? Math.max(1, exactLength(prng, discriminator) + prng.int(5) - 2)
        : 1 + prng.int(MAX_DATA_LENGTH);
  const data = prng.bytes(length);
  data[0] = discriminator;
  // Header bytes are enums and counts: make in-range values common so deeper checks are reached.
  for (let i = 1; i < Math.min(length, 4); i++) if (prng.chance(0.6)) data[i] = prng.int(6);
  if (discriminator === 5 && length >= 3 && (length - 3) % 34 === 0 && prng.chance(0.8)) {
    data[2] = (length - 3) / 34;
    for (let offset = 3; offset + 1 < length; offset += 34) {
      if (prng.chance(0.8)) data[offset] = prng.int(5);
      if (prng.chance(0.8)) data[offset + 1] = prng.int(3);
    }
  }
  return data;
}

function metaFor(world: FuzzWorld, account: PoolAccount | Address, prng: Prng): Meta {
  const address = typeof account === "string" ? account : account.address;
  if (address === world.feePayer.address) {
    const role = prng.chance(0.85) ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER;
    return { address, role, signer: world.feePayer };
  }
  const readonlyOnly =
    typeof account === "string"
      ? world.pool.find((p) => p.address === address)?.readonlyOnly
      : account.readonlyOnly;
  const role = readonlyOnly || prng.chance(0.3) ? AccountRole.READONLY : AccountRole.WRITABLE;
  return { address, role };
}

function randomAccounts(world: FuzzWorld, prng: Prng, discriminator: number): Meta[] {
  const fromPool = () =>
    prng.chance(0.1)
      ? metaFor(world, world.feePayer.address, prng)
      : metaFor(world, prng.pick(world.pool), prng);
  const template = world.templates[discriminator];
  if (template === undefined || prng.chance(0.3)) {
    return Array.from({ length: prng.int(11) }, fromPool);
  }
  const accounts = prng.pick(template).map((a) => metaFor(world, a, prng));
  const mutations = prng.int(3);
  for (let i = 0; i < mutations; i++) {
    const kind = prng.int(4);
    if (kind === 0 && accounts.length > 0) accounts[prng.int(accounts.length)] = fromPool();
    else if (kind === 1 && accounts.length > 0) accounts.splice(prng.int(accounts.length), 1);
    else if (kind === 2) accounts.push(fromPool());
    else if (accounts.length > 1) {
      const [x, y] = [prng.int(accounts.length), prng.int(accounts.length)];
      [accounts[x], accounts[y]] = [accounts[y]!, accounts[x]!];
    }
  }
  return accounts;
}

/** A seed input with up to three mutations of its data bytes or accounts. */
function mutatedSeed(world: FuzzWorld, prng: Prng): FuzzInput {
  const seed = prng.pick(world.seeds);
  const data = Uint8Array.from(seed.data);
  const accounts = [...seed.accounts];
  const mutations = prng.int(4);
  for (let i = 0; i < mutations; i++) {
    if (prng.chance(0.6) && data.length > 0) {
      data[prng.int(data.length)] = prng.chance(0.5) ? prng.int(256) : prng.int(6);
    } else if (accounts.length > 0) {
      accounts[prng.int(accounts.length)] = metaFor(world, prng.pick(world.pool), prng);
    }
  }
  return { before: seed.before, data, accounts };
}

function randomInput(world: FuzzWorld, prng: Prng): FuzzInput {
  if (prng.chance(0.2)) return mutatedSeed(world, prng);
  const data = randomData(prng);
  return { before: [], data, accounts: randomAccounts(world, prng, data[0] ?? -1) };
}

/** A valid update_agent by the agent's operator: the one input that would legitimately succeed. */
function isLegitimateUpdate(world: FuzzWorld, data: Uint8Array, accounts: readonly Meta[]): boolean {
  return (
    data.length === 3 &&
    data[0] === 2 &&
    data[1]! <= 2 &&
    data[2]! >= 1 &&
    data[2]! <= 15 &&
    accounts[0]?.address === world.feePayer.address &&
    accounts[1] !== undefined &&
    world.feePayerAgents.has(accounts[1].address)
  );
}

test(`${ITERATIONS} random instructions each fail with one of the program's error codes`, async (t) => {
  // Given a ledger with agents, attestations and batches, and a PRNG seeded with FUZZ_SEED
  const seedLine = `fuzz seed ${SEED} (reproduce with FUZZ_SEED=${SEED})`;
  console.log(seedLine);
  const prng = new Prng(SEED);
  const world = await buildWorld(prng);
  const codes = new Map<number, number>();
  let redrawn = 0;

  for (let i = 0; i < ITERATIONS; i++) {
    // When a random instruction, or a mutation of a known attack, is sent in its own transaction
    // (after the attack's precompile instruction, if any), signed only by the fee payer (a
    // well-formed update_agent of the fee payer's own agent is a valid instruction, not a fuzz
    // input: such draws are replaced, so every input sent must fail)
    let input = randomInput(world, prng);
    while (isLegitimateUpdate(world, input.data, input.accounts)) {
      input = randomInput(world, prng);
      redrawn++;
    }
    const { before, data, accounts } = input;
    const instruction = { programAddress: world.ledger.programId, accounts, data };
    const outcome = await send(world.ledger, [...before, instruction]);

    // Then it fails inside the program with one of the program's own codes
    const context = () =>
      `${seedLine}, iteration ${i}\n  data ${Buffer.from(data).toString("hex")}\n  accounts ${accounts
        .map((a) => `${a.address}:${a.role}`)
        .join(" ")}\n  ${logsOf(outcome.result).join("\n  ")}`;
    assert.ok(isFailure(outcome.result), `an unexpected success\n${context()}`);
    const failure = instructionFailureOf(outcome.result);
    assert.equal(
      failure?.instructionIndex,
      before.length,
      `not an error of the instruction: ${outcome.result.toString()}\n${context()}`,
    );
    assert.ok(
      failure.code !== undefined && isProgramErrorCode(failure.code),
      `not one of the program's codes: ${outcome.result.toString()}\n${context()}`,
    );
    codes.set(failure.code, (codes.get(failure.code) ?? 0) + 1);
  }

  const histogram = [...codes.entries()]
    .sort(([a], [b]) => a - b)
    .map(([code, count]) => `${code} ${getProgramErrorName(code)}: ${count}`)
    .join(", ");
  t.diagnostic(`${seedLine}: codes seen: ${histogram}; valid update_agent draws replaced: ${redrawn}`);
  // The inputs reach past the data checks into the account, agent and signature checks, and the
  // attack seeds reach the canonical-address checks.
  assert.ok(codes.size >= 12, `only ${codes.size} distinct codes: ${histogram}`);
  if (ITERATIONS >= 1_000) {
    assert.ok(codes.has(ABAS_PROGRAM__NON_CANONICAL_BUMP), `NonCanonicalBump never seen: ${histogram}`);
  }
});
