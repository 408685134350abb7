/**
 * Compute units the ABAS program consumes per instruction, transaction sizes, and what an
 * attestation costs in fees and rent, single or in a batch of 100. Runs the built program on
 * LiteSVM (the real SVM, in process). Then builds the SBPF v0 variant of the same sources and
 * measures it the same way, beside the committed v3 program: exits 1 if v3 costs more anywhere.
 * Writes bench/results/program-cu.json.
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
  buildPublishBatchLeavesInstruction,
  buildRegisterAgentInstruction,
  buildUpdateAgentInstruction,
  computeCommitment,
  MAX_BATCH_ITEMS,
} from "@abas/program-client";
import { getTransactionSize, type Address, type Instruction, type KeyPairSigner } from "@solana/kit";

import {
  balanceOf,
  buildSignedAttest,
  buildSignedBatch,
  createAgent,
  createOperator,
  createTestLedger,
  expectSuccess,
  hashPayload,
  PROGRAM_SO_PATH,
  programComputeUnits,
  randomHash,
  randomLeaves,
  send,
  type SendOutcome,
  type SignedBatch,
  type TestLedger,
} from "../program/tests/harness.js";
import { signInstructions } from "../program/tests/transactions.js";

const TRANSACTION_SIZE_LIMIT = 1232;
const COMMAND = "npm run bench:program-cu";

interface Row {
  readonly instruction: string;
  /** Compute units of the ABAS instruction alone, from the runtime's "consumed" log line. */
  readonly computeUnits: number;
  /** Compute units of the whole transaction (precompile included). */
  readonly transactionComputeUnits: number;
  readonly transactionBytes: number;
}

function measured(ledger: TestLedger, instruction: string, outcome: SendOutcome): Row {
  const meta = expectSuccess(outcome);
  const units = programComputeUnits(meta, ledger.programId);
  if (units.length !== 1)
    throw new Error(`${instruction}: expected one invocation of the program, got ${units.length}`);
  return {
    instruction,
    computeUnits: Number(units[0]),
    transactionComputeUnits: Number(meta.computeUnitsConsumed()),
    transactionBytes: outcome.size,
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
      rentLamports: number;
      totalLamports: number;
      perAttestationLamports: number;
    };
  };
}

export interface MeasureOptions {
  /** Another build than the committed .so. */
  readonly programBytes?: Uint8Array;
  /** Return the figures without printing them. */
  readonly quiet?: boolean;
}

/** Runs every instruction once on LiteSVM, prints the table and returns the figures. */
export async function measureProgramCu(options: MeasureOptions = {}): Promise<ProgramCuResults> {
  const startedAt = new Date();
  const ledger = await createTestLedger({ programBytes: options.programBytes });
  const rows: Row[] = [];
  const operator = await createOperator(ledger);
  const asOperator = (instructions: readonly Instruction[]) =>
    send(ledger, instructions, [], { feePayer: operator });

  // register_agent
  const agent = await createAgent();
  const register = await buildRegisterAgentInstruction({
    programId: ledger.programId,
    operator,
    agent,
    allowedActionTypes: 0b1111,
  });
  rows.push(measured(ledger, "register_agent", await asOperator([register])));
  const registered = { operator, agent };

  // attest, normal and privacy mode; the operator pays fee and rent, so its balance gives the cost
  const beforeSingle = balanceOf(ledger, operator.address);
  const normal = await buildSignedAttest(ledger, {
    ...registered,
    actionType: ActionType.ToolCall,
    storedHash: hashPayload({ tool: "search", query: "benchmark" }),
  });
  rows.push(measured(ledger, "attest (normal)", await asOperator(normal.instructions)));
  const singleCost = beforeSingle - balanceOf(ledger, operator.address);
  const privacy = await buildSignedAttest(ledger, {
    ...registered,
    actionType: ActionType.Decision,
    privacyMode: true,
    storedHash: computeCommitment(randomHash(), hashPayload({ decision: "approve" })),
  });
  rows.push(measured(ledger, "attest (privacy)", await asOperator(privacy.instructions)));

  // attest_batch with 1, 10 and 100 items, each in one transaction
  let batchOf100: SignedBatch | undefined;
  let batchCost = 0n;
  for (const itemCount of [1, 10, MAX_BATCH_ITEMS]) {
    const signed = await buildSignedBatch(ledger, { ...registered, leaves: randomLeaves(itemCount) });
    const before = balanceOf(ledger, operator.address);
    rows.push(
      measured(
        ledger,
        `attest_batch (${itemCount} item${itemCount === 1 ? "" : "s"})`,
        await asOperator(signed.instructions),
      ),
    );
    if (itemCount === MAX_BATCH_ITEMS) {
      batchOf100 = signed;
      batchCost += before - balanceOf(ledger, operator.address);
    }
  }
  if (!batchOf100) throw new Error("no batch of 100");

  // publish_batch_leaves of the 100-leaf batch, in the largest chunks a transaction holds
  const chunk = await maxLeavesPerTransaction(ledger, operator, agent.address, batchOf100);
  const publishTransactions: SendOutcome[] = [];
  const beforePublish = balanceOf(ledger, operator.address);
  for (let start = 0; start < MAX_BATCH_ITEMS; start += chunk) {
    const instruction = await buildPublishBatchLeavesInstruction({
      programId: ledger.programId,
      operator,
      agent: agent.address,
      merkleRoot: batchOf100.merkleRoot,
      startIndex: start,
      leaves: batchOf100.leaves.slice(start, start + chunk),
    });
    publishTransactions.push(await asOperator([instruction]));
  }
  batchCost += beforePublish - balanceOf(ledger, operator.address);
  const first = publishTransactions[0]!;
  const last = publishTransactions[publishTransactions.length - 1]!;
  const lastCount = MAX_BATCH_ITEMS - chunk * (publishTransactions.length - 1);
  rows.push(measured(ledger, `publish_batch_leaves (${chunk} leaves, max per tx)`, first));
  for (const outcome of publishTransactions.slice(1, -1)) expectSuccess(outcome);
  rows.push(measured(ledger, `publish_batch_leaves (final ${lastCount}, verifies root)`, last));

  // update_agent
  const update = await buildUpdateAgentInstruction({
    programId: ledger.programId,
    operator,
    agent: agent.address,
    status: AgentStatus.Suspended,
    allowedActionTypes: 0b0111,
  });
  rows.push(measured(ledger, "update_agent", await asOperator([update])));

  // Output
  const attestationRent = ledger.svm.minimumBalanceForRentExemption(331n);
  const batchRent = ledger.svm.minimumBalanceForRentExemption(BigInt(336 + 34 * MAX_BATCH_ITEMS));
  const costs = {
    single: {
      feeLamports: Number(singleCost - attestationRent),
      rentLamports: Number(attestationRent),
      totalLamports: Number(singleCost),
    },
    batchOf100: {
      transactions: 1 + publishTransactions.length,
      feeLamports: Number(batchCost - batchRent),
      rentLamports: Number(batchRent),
      totalLamports: Number(batchCost),
      perAttestationLamports: Number(batchCost) / MAX_BATCH_ITEMS,
    },
  };

  const results: ProgramCuResults = {
    command: COMMAND,
    date: startedAt.toISOString(),
    runtime: "litesvm 1.5.0 (in process)",
    method:
      "compute units of the ABAS instruction alone, from the runtime's 'consumed N of M compute units' log line",
    instructions: rows,
    lamportsPerAttestation: costs,
  };
  if (!options.quiet) printResults(results, startedAt);
  return results;
}

const pad = (value: string | number, width: number) => String(value).padStart(width);

function printResults(
  { instructions: rows, lamportsPerAttestation: costs }: ProgramCuResults,
  startedAt: Date,
): void {
  const name = Math.max(...rows.map((row) => row.instruction.length));
  console.log(`ABAS program compute units — ${COMMAND} — ${startedAt.toISOString()}`);
  console.log(
    `LiteSVM 1.5.0 in process; program CU from the runtime's "consumed" log line of our instruction only`,
  );
  console.log("");
  console.log(`${"instruction".padEnd(name)}  ${pad("CU", 7)}  ${pad("tx CU", 7)}  ${pad("tx bytes", 8)}`);
  console.log(`${"-".repeat(name)}  ${"-".repeat(7)}  ${"-".repeat(7)}  ${"-".repeat(8)}`);
  for (const row of rows) {
    console.log(
      `${row.instruction.padEnd(name)}  ${pad(row.computeUnits, 7)}  ${pad(row.transactionComputeUnits, 7)}  ${pad(row.transactionBytes, 8)}`,
    );
  }
  console.log("");
  console.log("lamports per attestation (fee + rent, paid by the operator)");
  console.log(
    `  single attestation : ${costs.single.totalLamports} (fee ${costs.single.feeLamports} + rent ${costs.single.rentLamports})`,
  );
  console.log(
    `  in a batch of 100  : ${costs.batchOf100.perAttestationLamports} (batch: ${costs.batchOf100.transactions} transactions, fee ${costs.batchOf100.feeLamports} + rent ${costs.batchOf100.rentLamports} = ${costs.batchOf100.totalLamports})`,
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

/** The same run on the v0 build, row by row beside the committed v3 program's figures. */
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
    };
  });
  const comparison: SbpfVersionComparison = {
    method:
      "the same instructions on the v0 build of the same sources (npm run program:build -- --sbpf-version 0)",
    programBytes: { v3: readFileSync(PROGRAM_SO_PATH).length, v0: v0Program.length },
    instructions,
  };
  const name = Math.max(...instructions.map((row) => row.instruction.length));
  console.log("");
  console.log(
    `SBPF v3 (committed, ${comparison.programBytes.v3} bytes) beside SBPF v0 (same sources, ${comparison.programBytes.v0} bytes)`,
  );
  console.log(`${"instruction".padEnd(name)}  ${pad("v3 CU", 7)}  ${pad("v0 CU", 7)}  ${pad("v3 - v0", 7)}`);
  console.log(`${"-".repeat(name)}  ${"-".repeat(7)}  ${"-".repeat(7)}  ${"-".repeat(7)}`);
  for (const row of instructions) {
    const difference = row.v3ComputeUnits - row.v0ComputeUnits;
    console.log(
      `${row.instruction.padEnd(name)}  ${pad(row.v3ComputeUnits, 7)}  ${pad(row.v0ComputeUnits, 7)}  ${pad(difference, 7)}`,
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
    (row) => row.v3ComputeUnits > row.v0ComputeUnits,
  );
  if (costlier.length > 0) {
    console.error(`SBPF v3 costs more than v0 for: ${costlier.map((row) => row.instruction).join(", ")}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await main();
