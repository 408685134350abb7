/**
 * The local ledger's throughput for attest transactions, against litesvm in process in the same
 * run:
 *
 * - over JSON-RPC: `abas-ledger` as its own process; 16 clients (each its own @solana/kit RPC
 *   client) send pre-signed attest transactions with `sendTransaction`, one after the other, and
 *   confirm them with `getSignatureStatuses` in groups; a transaction counts once its status is
 *   `confirmed` or `finalized` without error. Accepted/s runs to the last `sendTransaction`
 *   answer, confirmed/s to the last confirmation;
 * - in process: the same kind of transactions (Ed25519 precompile + attest, one operator paying,
 *   16 agents) sent one after the other to a `LiteSVM` through its own `sendTransaction`, half
 *   before the JSON-RPC pass and half after it.
 *
 * Signing happens before the clock starts on both sides. Writes bench/results/ledger.json.
 *
 *   npm run bench:ledger      (BENCH_LEDGER_TRANSACTIONS to change the count per side)
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import {
  buildAttestInstruction,
  buildAttestMessage,
  buildEd25519VerifyInstruction,
  buildRegisterAgentInstruction,
  signMessageWithKeyPair,
  ALL_ACTION_TYPES_MASK,
} from "@abas/program-client";
import { spawnLedgerProcess } from "@abas/ledger";
import {
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Base64EncodedWireTransaction,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
  type Transaction,
} from "@solana/kit";
import { FailedTransactionMetadata } from "litesvm";

import { createTestLedger, registerAgent } from "../program/tests/harness.js";
import { timeAppendFlushes } from "./disk-flush.js";

const COMMAND = "npm run bench:ledger";
const CLIENTS = 16;
const TRANSACTIONS = Number(process.env.BENCH_LEDGER_TRANSACTIONS ?? 2000);
/** Each client asks for the statuses of its sent transactions once this many are waiting. */
const CONFIRM_GROUP = 16;
const CONFIRM_TIMEOUT_MS = 60_000;
/** Long enough slots that a blockhash (150 slots) outlives signing every transaction beforehand. */
const SLOT_MS = 1000;
const RESULTS_PATH = fileURLToPath(new URL("./results/ledger.json", import.meta.url));

export interface LedgerResults {
  readonly command: string;
  readonly date: string;
  readonly machine: { readonly cores: number; readonly cpu: string; readonly loadAverageAtStart: number };
  readonly transaction: string;
  readonly rpc: {
    readonly process: string;
    readonly clients: number;
    readonly transactions: number;
    readonly acceptedPerSecond: number;
    readonly confirmedPerSecond: number;
    readonly seconds: number;
    /** The same clients calling getHealth, one call after the other: what HTTP and kit allow here. */
    readonly getHealthPerSecond: number;
  };
  readonly inProcess: { readonly runtime: string; readonly transactions: number; readonly perSecond: number };
  /** One append of a record's size plus fdatasync, on the disk the ledger writes to: the floor of a confirmation. */
  readonly fdatasync: { readonly samples: number; readonly p50Ms: number; readonly p99Ms: number };
  /** RPC confirmed/s divided by litesvm in process/s. */
  readonly ratio: number;
}

interface Lifetime {
  readonly blockhash: Blockhash;
  readonly lastValidBlockHeight: bigint;
}

const round = (value: number, digits = 0): number => Number(value.toFixed(digits));
const log = (message: string): void => void process.stderr.write(`${message}\n`);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function signedTransaction(
  payer: KeyPairSigner,
  instructions: readonly Instruction[],
  lifetime: Lifetime,
): Promise<Transaction> {
  return await signTransactionMessageWithSigners(
    pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(lifetime, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    ),
  );
}

/** One attestation of a fresh random hash: the agent signs it (Ed25519 precompile), the operator pays. */
async function signedAttest(
  programId: Address,
  operator: KeyPairSigner,
  agent: KeyPairSigner,
  lifetime: Lifetime,
): Promise<Transaction> {
  const storedHash = new Uint8Array(randomBytes(32));
  const actionType = 1;
  const message = buildAttestMessage({
    programId,
    agent: agent.address,
    actionType,
    privacyMode: false,
    storedHash,
  });
  const signature = await signMessageWithKeyPair(agent.keyPair, message);
  const attest = await buildAttestInstruction({
    programId,
    operator,
    agent: agent.address,
    actionType,
    privacyMode: false,
    storedHash,
  });
  return await signedTransaction(
    operator,
    [buildEd25519VerifyInstruction({ publicKey: agent.address, message, signature }), attest],
    lifetime,
  );
}

/** `count` attest transactions spread over the agents, round-robin. */
async function signedAttests(
  programId: Address,
  operator: KeyPairSigner,
  agents: readonly KeyPairSigner[],
  lifetime: Lifetime,
  count: number,
): Promise<Transaction[]> {
  const transactions: Transaction[] = [];
  for (let i = 0; i < count; i += 1) {
    transactions.push(await signedAttest(programId, operator, agents[i % agents.length]!, lifetime));
  }
  return transactions;
}

/**
 * litesvm in process, with every transaction signed beforehand; `send(count)` times the next
 * `count` of them. Run in two halves, before and after the JSON-RPC pass, so that both sides of
 * the ratio see the same (shared, noisy) machine.
 */
async function prepareInProcess(): Promise<{ send: (count: number) => number }> {
  const ledger = await createTestLedger();
  const operator = ledger.payer;
  const agents: KeyPairSigner[] = [];
  for (let i = 0; i < CLIENTS; i += 1) agents.push((await registerAgent(ledger, { operator })).agent);
  const lifetime = { blockhash: ledger.svm.latestBlockhash() as Blockhash, lastValidBlockHeight: 0n };
  const transactions = await signedAttests(ledger.programId, operator, agents, lifetime, TRANSACTIONS);
  return {
    send: (count) => {
      const started = performance.now();
      for (const transaction of transactions.splice(0, count)) {
        const result = ledger.svm.sendTransaction(transaction);
        if (result instanceof FailedTransactionMetadata) throw new Error(`in process: ${result.toString()}`);
      }
      return (performance.now() - started) / 1000;
    },
  };
}

/** Sends and waits until every signature is confirmed without error. */
async function sendAndConfirm(rpc: Rpc<SolanaRpcApi>, transaction: Transaction): Promise<void> {
  const signature = await rpc
    .sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: "base64" })
    .send();
  await confirmAll(rpc, [signature]);
}

async function confirmAll(rpc: Rpc<SolanaRpcApi>, signatures: readonly Signature[]): Promise<void> {
  let waiting = [...signatures];
  const deadline = Date.now() + CONFIRM_TIMEOUT_MS;
  while (waiting.length > 0) {
    const { value } = await rpc.getSignatureStatuses(waiting).send();
    const still: Signature[] = [];
    value.forEach((status, i) => {
      if (status?.err) throw new Error(`${waiting[i]} failed: ${JSON.stringify(status.err)}`);
      const confirmed =
        status?.confirmationStatus === "confirmed" || status?.confirmationStatus === "finalized";
      if (!confirmed) still.push(waiting[i]!);
    });
    waiting = still;
    if (waiting.length === 0) return;
    if (Date.now() > deadline) throw new Error(`${waiting.length} transactions never confirmed`);
    await sleep(10);
  }
}

/** One client: sends its transactions one after the other, confirming them in groups. */
async function runClient(
  rpc: Rpc<SolanaRpcApi>,
  transactions: readonly Base64EncodedWireTransaction[],
  onAccepted: () => void,
): Promise<void> {
  let sent: Signature[] = [];
  for (const wire of transactions) {
    sent.push(await rpc.sendTransaction(wire, { encoding: "base64" }).send());
    onAccepted();
    if (sent.length >= CONFIRM_GROUP) {
      await confirmAll(rpc, sent);
      sent = [];
    }
  }
  await confirmAll(rpc, sent);
}

const FDATASYNC_SAMPLES = 200;
/** About the size of an attest transaction's log record. */
const RECORD_BYTES = 1500;

async function measureFdatasync(): Promise<LedgerResults["fdatasync"]> {
  const times = await timeAppendFlushes(new Uint8Array(RECORD_BYTES).fill(7), FDATASYNC_SAMPLES);
  const at = (p: number): number =>
    round(times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)]!, 2);
  return { samples: FDATASYNC_SAMPLES, p50Ms: at(0.5), p99Ms: at(0.99) };
}

/** The ceiling of one request at a time per client, with no work behind it. */
async function measureGetHealth(clients: readonly Rpc<SolanaRpcApi>[]): Promise<number> {
  const calls = Math.ceil(TRANSACTIONS / clients.length);
  const started = performance.now();
  await Promise.all(
    clients.map(async (rpc) => {
      for (let i = 0; i < calls; i += 1) await rpc.getHealth().send();
    }),
  );
  return round((calls * clients.length) / ((performance.now() - started) / 1000));
}

async function measureRpc(): Promise<LedgerResults["rpc"]> {
  const dataDir = mkdtempSync(join(tmpdir(), "abas-bench-ledger-"));
  const ledger = await spawnLedgerProcess({ dataDir, slotMs: SLOT_MS });
  try {
    const setupRpc = createSolanaRpc(ledger.rpcUrl);
    const operator = await generateKeyPairSigner();
    await confirmAll(setupRpc, [
      await setupRpc.requestAirdrop(operator.address, lamports(1_000_000_000_000n)).send(),
    ]);
    const agents: KeyPairSigner[] = [];
    const { value: registerLifetime } = await setupRpc.getLatestBlockhash().send();
    for (let i = 0; i < CLIENTS; i += 1) {
      const agent = await generateKeyPairSigner();
      const register = await buildRegisterAgentInstruction({
        programId: ledger.programId,
        operator,
        agent,
        allowedActionTypes: ALL_ACTION_TYPES_MASK,
      });
      await sendAndConfirm(setupRpc, await signedTransaction(operator, [register], registerLifetime));
      agents.push(agent);
    }
    const { value: lifetime } = await setupRpc.getLatestBlockhash().send();
    const signingStarted = performance.now();
    const wires = (await signedAttests(ledger.programId, operator, agents, lifetime, TRANSACTIONS)).map(
      getBase64EncodedWireTransaction,
    );
    log(
      `  signed ${TRANSACTIONS} transactions in ${round((performance.now() - signingStarted) / 1000, 1)} s`,
    );
    const perClient = Array.from({ length: CLIENTS }, (_, client) =>
      wires.filter((_, i) => i % CLIENTS === client),
    );
    const clients = perClient.map(() => createSolanaRpc(ledger.rpcUrl));
    let accepted = 0;
    let lastAcceptedAt = 0;
    const started = performance.now();
    await Promise.all(
      clients.map((rpc, i) =>
        runClient(rpc, perClient[i]!, () => {
          accepted += 1;
          lastAcceptedAt = performance.now();
        }),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const getHealthPerSecond = await measureGetHealth(clients);
    return {
      process: `@abas/ledger (separate process, ${SLOT_MS} ms slots, LOG_LEVEL=warn)`,
      clients: CLIENTS,
      transactions: accepted,
      acceptedPerSecond: round(accepted / ((lastAcceptedAt - started) / 1000)),
      confirmedPerSecond: round(accepted / seconds),
      seconds: round(seconds, 2),
      getHealthPerSecond,
    };
  } finally {
    await ledger.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function measureLedger(): Promise<LedgerResults> {
  const date = new Date().toISOString();
  const loadAverageAtStart = round(loadavg()[0]!, 2);
  log(
    `ledger: ${TRANSACTIONS} attest transactions over JSON-RPC from ${CLIENTS} clients (load ${loadAverageAtStart})`,
  );
  const inProcessRun = await prepareInProcess();
  const firstHalf = Math.floor(TRANSACTIONS / 2);
  let inProcessSeconds = inProcessRun.send(firstHalf);
  const rpc = await measureRpc();
  log(`  over JSON-RPC: ${rpc.acceptedPerSecond} accepted/s, ${rpc.confirmedPerSecond} confirmed/s`);
  log(`  getHealth from the same clients: ${rpc.getHealthPerSecond}/s`);
  inProcessSeconds += inProcessRun.send(TRANSACTIONS - firstHalf);
  const inProcess = {
    runtime: "litesvm 1.5.0 (in process)",
    transactions: TRANSACTIONS,
    perSecond: round(TRANSACTIONS / inProcessSeconds),
  };
  log(`  litesvm in process: ${inProcess.perSecond}/s`);
  const fdatasync = await measureFdatasync();
  log(`  append + fdatasync: p50 ${fdatasync.p50Ms} ms, p99 ${fdatasync.p99Ms} ms`);
  const ratio = round(rpc.confirmedPerSecond / inProcess.perSecond, 3);
  log(`  ratio: ${ratio}`);
  return {
    command: COMMAND,
    date,
    machine: { cores: availableParallelism(), cpu: cpus()[0]?.model.trim() ?? "unknown", loadAverageAtStart },
    transaction: "Ed25519 precompile + attest (normal mode), one operator paying for 16 agents",
    rpc,
    inProcess,
    fdatasync,
    ratio,
  };
}

async function main(): Promise<void> {
  const results = await measureLedger();
  mkdirSync(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
  writeFileSync(RESULTS_PATH, `${JSON.stringify(results, null, 2)}\n`);
  console.log(JSON.stringify(results, null, 2));
  log("wrote bench/results/ledger.json");
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  await main();
