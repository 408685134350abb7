/**
 * Compute units the ABAS program consumes per instruction, transaction sizes, and what an
 * attestation costs in fees and rent, single or in a batch of 100. Runs the built program on
 * LiteSVM (the real SVM, in process). Writes bench/results/program-cu.json.
 *
 * Creating an account costs more when its canonical bump is lower (the program proves every higher
 * bump gives no program address), so each instruction is sampled over fresh addresses and the
 * median and the maximum are reported.
 *
 *   npm run bench:program-cu
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

import {
  ActionType,
  AgentStatus,
  BATCH_COMPLETE_ACCOUNT_SIZE,
  BATCH_PENDING_ACCOUNT_SIZE,
  buildPublishBatchLeavesInstruction,
  buildRegisterAgentInstruction,
  buildUpdateAgentInstruction,
  computeCommitment,
  MAX_BATCH_ITEMS,
  ATTESTATION_ACCOUNT_SIZE,
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
/** Fresh addresses per instruction: enough to see the spread the bump proof causes. */
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

export interface ProgramCuResults {
  readonly command: string;
  readonly date: string;
  readonly runtime: string;
  readonly method: string;
  readonly instructions: Row[];
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

/** Runs every instruction on LiteSVM, prints the tables and returns the figures. */
export async function measureProgramCu(): Promise<ProgramCuResults> {
  const startedAt = new Date();
  const ledger = await createTestLedger();
  const operator = await createOperator(ledger, 10_000n);
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
  let agent = await createAgent();
  rows.push(
    rowOf(
      "register_agent",
      await repeat(SAMPLES, async () => {
        agent = await createAgent();
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
          storedHash: hashPayload({ tool: "search", query: randomHash().join(",") }),
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
          storedHash: computeCommitment(randomHash(), hashPayload({ decision: "approve" })),
        });
        return sampleOf(ledger, "attest", await asOperator(signed.instructions));
      }),
    ),
  );

  // attest_batch with 1, 10 and 100 items, each in one transaction
  for (const itemCount of [1, 10]) {
    rows.push(
      rowOf(
        `attest_batch (${itemCount} item${itemCount === 1 ? "" : "s"})`,
        await repeat(SAMPLES, async () => {
          const signed = await buildSignedBatch(ledger, { ...registered, leaves: randomLeaves(itemCount) });
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
    const signed = await buildSignedBatch(ledger, { ...registered, leaves: randomLeaves(MAX_BATCH_ITEMS) });
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

  // Output
  const rent = (size: number) => ledger.svm.minimumBalanceForRentExemption(BigInt(size));
  const attestationRent = rent(ATTESTATION_ACCOUNT_SIZE);
  const batchRent = rent(BATCH_COMPLETE_ACCOUNT_SIZE);
  const perAttestation = Number(batchCost) / MAX_BATCH_ITEMS;
  const costs = {
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
  };
  const maxPublishChunkComputeUnits = Math.max(...[...chunks, ...finalChunks].map((s) => s.computeUnits));

  const pad = (value: string | number, width: number) => String(value).padStart(width);
  const name = Math.max(...rows.map((row) => row.instruction.length));
  console.log(`ABAS program compute units — ${COMMAND} — ${startedAt.toISOString()}`);
  console.log(`LiteSVM 1.5.0 in process; CU of our instruction only, median and range over fresh addresses`);
  console.log("");
  console.log(
    `${"instruction".padEnd(name)}  ${pad("n", 3)}  ${pad("median", 7)}  ${pad("min", 6)}  ${pad("max", 6)}  ${pad("tx bytes", 8)}`,
  );
  for (const row of rows) {
    console.log(
      `${row.instruction.padEnd(name)}  ${pad(row.samples, 3)}  ${pad(row.computeUnits, 7)}  ${pad(row.minComputeUnits, 6)}  ${pad(row.maxComputeUnits, 6)}  ${pad(row.transactionBytes, 8)}`,
    );
  }
  console.log("");
  console.log("lamports per attestation (fee + rent, paid by the operator)");
  console.log(
    `  single attestation : ${costs.single.totalLamports} (fee ${costs.single.feeLamports} + rent ${costs.single.rentLamports})`,
  );
  console.log(
    `  in a batch of 100  : ${perAttestation} (batch: ${costs.batchOf100.transactions} transactions, fee ${costs.batchOf100.feeLamports} + rent ${costs.batchOf100.rentLamports} = ${costs.batchOf100.totalLamports}; ${costs.batchOf100.pendingRentLamports} held while pending)`,
  );
  console.log(
    `  ratio              : 1/${costs.singleToBatchItemRatio} (goal ≤ 1/${BATCH_COST_GOAL_RATIO}); heaviest publish chunk ${maxPublishChunkComputeUnits} CU (goal ≤ ${PUBLISH_CHUNK_CU_LIMIT})`,
  );

  return {
    command: COMMAND,
    date: startedAt.toISOString(),
    runtime: "litesvm 1.5.0 (in process)",
    method:
      "compute units of the ABAS instruction alone, from the runtime's 'consumed N of M compute units' log line; median, min and max over fresh addresses",
    instructions: rows,
    lamportsPerAttestation: costs,
    maxPublishChunkComputeUnits,
  };
}

async function main(): Promise<void> {
  const results = await measureProgramCu();
  const resultsDirectory = fileURLToPath(new URL("./results/", import.meta.url));
  mkdirSync(resultsDirectory, { recursive: true });
  writeFileSync(`${resultsDirectory}program-cu.json`, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nwrote bench/results/program-cu.json`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await main();
