/**
 * Compute units the ABAS program consumes per instruction, transaction sizes, and what an
 * attestation costs in fees and rent, single or in a batch of 100. Runs the built program on
 * LiteSVM (the real SVM, in process). Then builds the SBPF v0 variant of the same sources and
 * measures it the same way, beside the committed v3 program: exits 1 if v3 costs more anywhere.
 * Writes bench/results/program-cu.json.
 *
 * Creating an account costs more when its canonical bump is lower (the program proves every higher
 * bump gives no program address), so each instruction is sampled over many addresses and the
 * median and the maximum are reported. Every key and hash comes from a fixed seed: a run repeats
 * exactly, and both builds see the same addresses.
 *
 *   npm run bench:program-cu
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { buildProgram, locateToolchain } from "@abas/program-build";
import {
  ActionType,
  AgentStatus,
  ATTESTATION_ACCOUNT_SIZE,
  BATCH_COMPLETE_ACCOUNT_SIZE,
  BATCH_PENDING_ACCOUNT_SIZE,
  buildPublishBatchLeavesInstruction,
  buildRegisterAgentInstruction,
  buildUpdateAgentInstruction,
  computeCommitment,
  MAX_BATCH_ITEMS,
} from "@abas/program-client";
import {
  getTransactionSize,
  lamports,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";

import {
  balanceOf,
  buildSignedAttest,
  buildSignedBatch,
  createTestLedger,
  expectSuccess,
  programComputeUnits,
  send,
  LAMPORTS_PER_SOL,
  PROGRAM_SO_PATH,
  type SendOutcome,
  type SignedBatch,
  type TestLedger,
} from "../program/tests/harness.js";
import { leavesFrom, Prng, signerFrom } from "../program/tests/prng.js";
import { signInstructions } from "../program/tests/transactions.js";

const TRANSACTION_SIZE_LIMIT = 1232;
const COMMAND = "npm run bench:program-cu";
/** Every key, hash and leaf of a run comes from this seed. */
const SEED = 2026;
/** Addresses per instruction: enough to see the spread the bump proof causes. */
const SAMPLES = 25;
const BATCHES_OF_100 = 5;
/** Goals of the batch design: an action in a full batch costs at most 1/50 of a single one, and no publish chunk is heavy. */
export const BATCH_COST_GOAL_RATIO = 50;
export const PUBLISH_CHUNK_CU_LIMIT = 15_000;

interface Sample {
  readonly computeUnits: number;
  readonly transactionComputeUnits: number;
  readonly transactionBytes: number;
}

interface Row {
  readonly instruction: string;
  readonly samples: number;
  /** Median compute units of the ABAS instruction alone, from the runtime's "consumed" log line. */
  readonly computeUnits: number;
  readonly minComputeUnits: number;
  readonly maxComputeUnits: number;
  /** Median compute units of the whole transaction (precompile included). */
  readonly transactionComputeUnits: number;
  readonly transactionBytes: number;
}

function sampleOf(ledger: TestLedger, what: string, outcome: SendOutcome): Sample {
  const meta = expectSuccess(outcome);
  const units = programComputeUnits(meta, ledger.programId);
  if (units.length !== 1)
    throw new Error(`${what}: expected one invocation of the program, got ${units.length}`);
  return {
    computeUnits: Number(units[0]),
    transactionComputeUnits: Number(meta.computeUnitsConsumed()),
    transactionBytes: outcome.size,
  };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

function rowOf(instruction: string, samples: readonly Sample[]): Row {
  const units = samples.map((sample) => sample.computeUnits);
  return {
    instruction,
    samples: samples.length,
    computeUnits: median(units),
    minComputeUnits: Math.min(...units),
    maxComputeUnits: Math.max(...units),
    transactionComputeUnits: median(samples.map((sample) => sample.transactionComputeUnits)),
    transactionBytes: Math.max(...samples.map((sample) => sample.transactionBytes)),
  };
}

/** The most leaves one publish_batch_leaves transaction can carry when the operator pays the fee. */
async function maxLeavesPerTransaction(
  ledger: TestLedger,
  operator: KeyPairSigner,
  agent: Address,
  batch: SignedBatch,
): Promise<number> {
  let fits = 0;
  for (let count = 1; count <= MAX_BATCH_ITEMS; count++) {
    const instruction = await buildPublishBatchLeavesInstruction({
      programId: ledger.programId,
      operator,
      agent,
      merkleRoot: batch.merkleRoot,
      startIndex: 0,
      leaves: batch.leaves.slice(0, count),
    });
    const size = getTransactionSize(await signInstructions(ledger.svm, operator, [instruction]));
    if (size > TRANSACTION_SIZE_LIMIT) break;
    fits = count;
  }
  return fits;
}

export interface SbpfVersionComparison {
  readonly method: string;
  readonly programBytes: { readonly v3: number; readonly v0: number };
  readonly instructions: Array<{
    readonly instruction: string;
    readonly v3ComputeUnits: number;
    readonly v0ComputeUnits: number;
    readonly v3MaxComputeUnits: number;
    readonly v0MaxComputeUnits: number;
  }>;
}

export interface ProgramCuResults {
  readonly command: string;
  readonly date: string;
  readonly runtime: string;
  readonly method: string;
  readonly instructions: Row[];
  /** Set by `npm run bench:program-cu`: the same instructions on the SBPF v0 build. */
  readonly sbpfComparison?: SbpfVersionComparison;
  readonly lamportsPerAttestation: {
    readonly single: { feeLamports: number; rentLamports: number; totalLamports: number };
    readonly batchOf100: {
      transactions: number;
      feeLamports: number;
      /** The rent the batch account keeps once complete. */
      rentLamports: number;
      /** Rent held while leaves are pending (the Merkle frontier), refunded by the last chunk. */
      pendingRentLamports: number;
      totalLamports: number;
      perAttestationLamports: number;
    };
    /** How many actions in a full batch cost what one single attestation costs (goal ≥ 50). */
    readonly singleToBatchItemRatio: number;
  };
  /** The heaviest publish_batch_leaves chunk seen (goal ≤ 15,000). */
  readonly maxPublishChunkComputeUnits: number;
}

export interface MeasureOptions {
  /** Another build than the committed .so. */
  readonly programBytes?: Uint8Array;
  /** Return the figures without printing them. */
  readonly quiet?: boolean;
}

/** Runs every instruction on LiteSVM, prints the tables and returns the figures. */
export async function measureProgramCu(options: MeasureOptions = {}): Promise<ProgramCuResults> {
  const startedAt = new Date();
  const prng = new Prng(SEED);
  const ledger = await createTestLedger({
    payer: await signerFrom(prng),
    program: await signerFrom(prng),
    programBytes: options.programBytes,
  });
  const operator = await signerFrom(prng);
  ledger.svm.airdrop(operator.address, lamports(10_000n * LAMPORTS_PER_SOL));
  const asOperator = (instructions: readonly Instruction[]) =>
    send(ledger, instructions, [], { feePayer: operator });
  const costOf = async (instructions: readonly Instruction[]) => {
    const before = balanceOf(ledger, operator.address);
    const outcome = await asOperator(instructions);
    return { outcome, cost: before - balanceOf(ledger, operator.address) };
  };
  const rows: Row[] = [];
  const repeat = async (count: number, one: () => Promise<Sample>) => {
    const samples: Sample[] = [];
    for (let i = 0; i < count; i++) samples.push(await one());
    return samples;
  };

  // register_agent, each a fresh agent key; the last one attests and batches below
  let agent = await signerFrom(prng);
  rows.push(
    rowOf(
      "register_agent",
      await repeat(SAMPLES, async () => {
        agent = await signerFrom(prng);
        const instruction = await buildRegisterAgentInstruction({
          programId: ledger.programId,
          operator,
          agent,
          allowedActionTypes: 0b1111,
        });
        return sampleOf(ledger, "register_agent", await asOperator([instruction]));
      }),
    ),
  );
  const registered = { operator, agent };

  // attest, normal and privacy mode; the operator pays fee and rent, so its balance gives the cost
  let singleCost = 0n;
  rows.push(
    rowOf(
      "attest (normal)",
      await repeat(SAMPLES, async () => {
        const signed = await buildSignedAttest(ledger, {
          ...registered,
          actionType: ActionType.ToolCall,
          storedHash: prng.bytes(32),
        });
        const { outcome, cost } = await costOf(signed.instructions);
        singleCost = cost;
        return sampleOf(ledger, "attest", outcome);
      }),
    ),
  );
  rows.push(
    rowOf(
      "attest (privacy)",
      await repeat(SAMPLES, async () => {
        const signed = await buildSignedAttest(ledger, {
          ...registered,
          actionType: ActionType.Decision,
          privacyMode: true,
          storedHash: computeCommitment(prng.bytes(32), prng.bytes(32)),
        });
        return sampleOf(ledger, "attest", await asOperator(signed.instructions));
      }),
    ),
  );

  // attest_batch with 1 and 10 items, each in one transaction
  for (const itemCount of [1, 10]) {
    rows.push(
      rowOf(
        `attest_batch (${itemCount} item${itemCount === 1 ? "" : "s"})`,
        await repeat(SAMPLES, async () => {
          const signed = await buildSignedBatch(ledger, {
            ...registered,
            leaves: leavesFrom(prng, itemCount),
          });
          return sampleOf(ledger, "attest_batch", await asOperator(signed.instructions));
        }),
      ),
    );
  }

  // Batches of 100: the commit, then the leaves in the largest chunks a transaction holds
  const commits: Sample[] = [];
  const chunks: Sample[] = [];
  const finalChunks: Sample[] = [];
  let batchCost = 0n;
  let publishTransactions = 0;
  let chunkSize = 0;
  for (let b = 0; b < BATCHES_OF_100; b++) {
    const signed = await buildSignedBatch(ledger, {
      ...registered,
      leaves: leavesFrom(prng, MAX_BATCH_ITEMS),
    });
    const commit = await costOf(signed.instructions);
    commits.push(sampleOf(ledger, "attest_batch", commit.outcome));
    chunkSize ||= await maxLeavesPerTransaction(ledger, operator, agent.address, signed);
    let cost = commit.cost;
    publishTransactions = 0;
    for (let start = 0; start < MAX_BATCH_ITEMS; start += chunkSize) {
      const instruction = await buildPublishBatchLeavesInstruction({
        programId: ledger.programId,
        operator,
        agent: agent.address,
        merkleRoot: signed.merkleRoot,
        startIndex: start,
        leaves: signed.leaves.slice(start, start + chunkSize),
      });
      const chunk = await costOf([instruction]);
      cost += chunk.cost;
      publishTransactions++;
      const isFinal = start + chunkSize >= MAX_BATCH_ITEMS;
      (isFinal ? finalChunks : chunks).push(sampleOf(ledger, "publish_batch_leaves", chunk.outcome));
    }
    batchCost = cost;
  }
  const lastCount = MAX_BATCH_ITEMS - chunkSize * (publishTransactions - 1);
  rows.push(rowOf(`attest_batch (${MAX_BATCH_ITEMS} items)`, commits));
  rows.push(rowOf(`publish_batch_leaves (${chunkSize} leaves, max per tx)`, chunks));
  rows.push(rowOf(`publish_batch_leaves (final ${lastCount}, verifies root, shrinks)`, finalChunks));

  // update_agent
  rows.push(
    rowOf(
      "update_agent",
      await repeat(SAMPLES, async () => {
        const update = await buildUpdateAgentInstruction({
          programId: ledger.programId,
          operator,
          agent: agent.address,
          status: AgentStatus.Active,
          allowedActionTypes: 0b1111,
        });
        return sampleOf(ledger, "update_agent", await asOperator([update]));
      }),
    ),
  );

  const rent = (size: number) => ledger.svm.minimumBalanceForRentExemption(BigInt(size));
  const attestationRent = rent(ATTESTATION_ACCOUNT_SIZE);
  const batchRent = rent(BATCH_COMPLETE_ACCOUNT_SIZE);
  const perAttestation = Number(batchCost) / MAX_BATCH_ITEMS;
  const results: ProgramCuResults = {
    command: COMMAND,
    date: startedAt.toISOString(),
    runtime: "litesvm 1.5.0 (in process)",
    method:
      "compute units of the ABAS instruction alone, from the runtime's 'consumed N of M compute units' log line; " +
      `median, min and max over ${SAMPLES} addresses (5 batches of 100) drawn from seed ${SEED}`,
    instructions: rows,
    lamportsPerAttestation: {
      single: {
        feeLamports: Number(singleCost - attestationRent),
        rentLamports: Number(attestationRent),
        totalLamports: Number(singleCost),
      },
      batchOf100: {
        transactions: 1 + publishTransactions,
        feeLamports: Number(batchCost - batchRent),
        rentLamports: Number(batchRent),
        pendingRentLamports: Number(rent(BATCH_PENDING_ACCOUNT_SIZE)),
        totalLamports: Number(batchCost),
        perAttestationLamports: perAttestation,
      },
      singleToBatchItemRatio: Math.round((Number(singleCost) / perAttestation) * 10) / 10,
    },
    maxPublishChunkComputeUnits: Math.max(...[...chunks, ...finalChunks].map((s) => s.computeUnits)),
  };
  if (!options.quiet) printResults(results, startedAt);
  return results;
}

const pad = (value: string | number, width: number) => String(value).padStart(width);

function printResults(results: ProgramCuResults, startedAt: Date): void {
  const { instructions: rows, lamportsPerAttestation: costs } = results;
  const name = Math.max(...rows.map((row) => row.instruction.length));
  console.log(`ABAS program compute units — ${COMMAND} — ${startedAt.toISOString()}`);
  console.log(`LiteSVM 1.5.0 in process; CU of our instruction only, median and range over seeded addresses`);
  console.log("");
  console.log(
    `${"instruction".padEnd(name)}  ${pad("n", 3)}  ${pad("median", 7)}  ${pad("min", 6)}  ${pad("max", 6)}  ${pad("tx bytes", 8)}`,
  );
  for (const row of rows) {
    console.log(
      `${row.instruction.padEnd(name)}  ${pad(row.samples, 3)}  ${pad(row.computeUnits, 7)}  ${pad(row.minComputeUnits, 6)}  ${pad(row.maxComputeUnits, 6)}  ${pad(row.transactionBytes, 8)}`,
    );
  }
  const { single, batchOf100 } = costs;
  console.log("");
  console.log("lamports per attestation (fee + rent, paid by the operator)");
  console.log(
    `  single attestation : ${single.totalLamports} (fee ${single.feeLamports} + rent ${single.rentLamports})`,
  );
  console.log(
    `  in a batch of 100  : ${batchOf100.perAttestationLamports} (batch: ${batchOf100.transactions} transactions, fee ${batchOf100.feeLamports} + rent ${batchOf100.rentLamports} = ${batchOf100.totalLamports}; ${batchOf100.pendingRentLamports} held while pending)`,
  );
  console.log(
    `  ratio              : 1/${costs.singleToBatchItemRatio} (goal ≤ 1/${BATCH_COST_GOAL_RATIO}); heaviest publish chunk ${results.maxPublishChunkComputeUnits} CU (goal ≤ ${PUBLISH_CHUNK_CU_LIMIT})`,
  );
}

/** The SBPF v0 build of the committed program's sources, with the same toolchain. */
function buildSbpfV0(): Uint8Array {
  const repositoryRoot = fileURLToPath(new URL("../", import.meta.url));
  const scratch = mkdtempSync(join(tmpdir(), "abas-bench-sbpf-v0-"));
  try {
    return buildProgram({
      toolchain: locateToolchain(),
      crateRoot: join(repositoryRoot, "program", "src", "lib.rs"),
      crateName: "abas_attestation",
      outDir: join(scratch, "dist"),
      workDir: join(scratch, "work"),
      sourceRoot: repositoryRoot,
      sbpfVersion: 0,
    }).program;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The same run (same seed, so the same addresses) on the v0 build, row by row beside the v3 figures. */
async function compareWithSbpfV0(v3: ProgramCuResults): Promise<SbpfVersionComparison> {
  const v0Program = buildSbpfV0();
  const v0 = await measureProgramCu({ programBytes: v0Program, quiet: true });
  const instructions = v3.instructions.map((row, i) => {
    const v0Row = v0.instructions[i];
    if (v0Row?.instruction !== row.instruction) throw new Error(`v0 run differs at ${row.instruction}`);
    return {
      instruction: row.instruction,
      v3ComputeUnits: row.computeUnits,
      v0ComputeUnits: v0Row.computeUnits,
      v3MaxComputeUnits: row.maxComputeUnits,
      v0MaxComputeUnits: v0Row.maxComputeUnits,
    };
  });
  const comparison: SbpfVersionComparison = {
    method:
      "the same instructions and addresses on the v0 build of the same sources (npm run program:build -- --sbpf-version 0)",
    programBytes: { v3: readFileSync(PROGRAM_SO_PATH).length, v0: v0Program.length },
    instructions,
  };
  const name = Math.max(...instructions.map((row) => row.instruction.length));
  console.log("");
  console.log(
    `SBPF v3 (committed, ${comparison.programBytes.v3} bytes) beside SBPF v0 (same sources, ${comparison.programBytes.v0} bytes); median and max CU`,
  );
  console.log(
    `${"instruction".padEnd(name)}  ${pad("v3", 7)}  ${pad("v0", 7)}  ${pad("v3 max", 7)}  ${pad("v0 max", 7)}`,
  );
  for (const row of instructions) {
    console.log(
      `${row.instruction.padEnd(name)}  ${pad(row.v3ComputeUnits, 7)}  ${pad(row.v0ComputeUnits, 7)}  ${pad(row.v3MaxComputeUnits, 7)}  ${pad(row.v0MaxComputeUnits, 7)}`,
    );
  }
  return comparison;
}

async function main(): Promise<void> {
  const measured = await measureProgramCu();
  const results = { ...measured, sbpfComparison: await compareWithSbpfV0(measured) };
  const resultsDirectory = fileURLToPath(new URL("./results/", import.meta.url));
  mkdirSync(resultsDirectory, { recursive: true });
  writeFileSync(`${resultsDirectory}program-cu.json`, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nwrote bench/results/program-cu.json`);
  const costlier = results.sbpfComparison.instructions.filter(
    (row) => row.v3ComputeUnits > row.v0ComputeUnits || row.v3MaxComputeUnits > row.v0MaxComputeUnits,
  );
  if (costlier.length > 0) {
    console.error(`SBPF v3 costs more than v0 for: ${costlier.map((row) => row.instruction).join(", ")}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await main();
