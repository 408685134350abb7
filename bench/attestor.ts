/**
 * The SDK attestor (`@abas/sdk/attestor`) against the local ledger (`@abas/ledger`, its own
 * process): the time `record` takes on the agent's hot path at 1,000 actions/s with the on-disk
 * queue (each durability mode), the disk's own flush time (the floor of "fsync" durability),
 * the lamports per recorded action in full batches next to one
 * single `attest`, and kill -9 of an agent process under load, repeated, counting the recorded
 * actions lost or duplicated on the ledger. Writes bench/results/attestor.json and its section of
 * docs/performance.md.
 *
 *   npm run bench:attestor            (BENCH_KILLS=20, BENCH_SECONDS=10 by default)
 *   BENCH_RENDER_ONLY=1 npm run bench:attestor   (the docs section again, from the recorded figures)
 *   BENCH_OTHERS_IDLE=1 npm run bench:attestor   (a diagnosis: the hot path only, with every thread
 *     but the main ones, and the ledger wholly, at SCHED_IDLE (idle-threads.ts); printed, not recorded)
 */
import { spawn } from "node:child_process";
import fs, { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { AttestationClient, generateSecretKey } from "@abas/sdk";
import { Attestor, type QueueDurability } from "@abas/sdk/attestor";
import { format, resolveConfig } from "prettier";

import { timeAppendFlushes, timeTimerLateness } from "./disk-flush.js";
import { docsSectionEnd, docsSectionStart, withDocsSection } from "./docs-sections.js";
import { keepOtherThreadsIdle } from "./idle-threads.js";
import { runPaced } from "./paced.js";
import { startCpuClock } from "./process-cpu.js";
import { killAttestorUnderLoad } from "../packages/sdk/src/__tests__/support/kill-attestor-under-load.js";
import { startCountingRpcProxy } from "../packages/sdk/src/__tests__/support/counting-rpc-proxy.js";
import { countLeaves, readAgentBatches } from "../packages/sdk/src/__tests__/support/ledger-batches.js";
import {
  addressOf,
  fundedSecretKey,
  startTestLedger,
  type TestLedger,
} from "../packages/sdk/src/__tests__/support/local-ledger.js";

const COMMAND = "npm run bench:attestor";
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RESULTS_FILE = join(ROOT, "bench", "results", "attestor.json");
const DOCS_FILE = join(ROOT, "docs", "performance.md");
const RATE_PER_SECOND = 1000;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const KILLS = Number(process.env.BENCH_KILLS ?? 20);
const OTHERS_IDLE = process.env.BENCH_OTHERS_IDLE === "1";
const COST_ACTIONS = 1000;
const DRAIN_ACTIONS = 3000;
const FLUSHES = 1000;
const SOL = 1_000_000_000n;

type Agent = Readonly<{ agentKeypair: Uint8Array; operatorKeypair: Uint8Array; client: AttestationClient }>;

type HotPathResult = Readonly<{
  durability: QueueDurability;
  actions: number;
  achievedPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The disk flush inside each call (none with "write"), and the rest of the call. */
  flushP50Ms?: number;
  flushP99Ms?: number;
  ownWorkP50Ms?: number;
  ownWorkP99Ms?: number;
  /** How late the agent's event loop ran its timers meanwhile (monitorEventLoopDelay): what batching costs the agent's thread. */
  loopDelayP99Ms?: number;
  loopDelayMaxMs?: number;
  /** CPU time during the run, in % of one core: this agent process (its threads together), and the ledger's process. */
  agentCpuPercent?: number;
  ledgerCpuPercent?: number;
  /** "write" runs: the flushes of a separate process at the same pace meanwhile (bench/flush-probe.ts). */
  probeFlushP50Ms?: number;
  probeFlushP99Ms?: number;
}>;

async function registeredAgent(ledger: TestLedger): Promise<Agent> {
  const agentKeypair = generateSecretKey();
  const operatorKeypair = await fundedSecretKey(ledger, 1000n * SOL);
  const client = new AttestationClient({ rpcUrl: ledger.rpcUrl, agentKeypair, programId: ledger.programId });
  await client.registerAgent({ operatorKeypair });
  return { agentKeypair, operatorKeypair, client };
}

function openAttestor(
  ledger: TestLedger,
  agent: Agent,
  queueDir: string,
  extra: object = {},
): Promise<Attestor> {
  return Attestor.open({
    client: { rpcUrl: ledger.rpcUrl, agentKeypair: agent.agentKeypair, programId: ledger.programId },
    operatorKeypair: agent.operatorKeypair,
    queueDir,
    ...extra,
  });
}

const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round3 = (value: number): number => Math.round(value * 1000) / 1000;

/**
 * Times this thread's disk flushes where they happen: node:fs's fdatasyncSync, as every module of
 * this thread imports it, is wrapped (the real call, timed) until `restore`. `takeMs` gives the
 * time spent flushing since it was last called.
 */
function clockFlushes(): { takeMs: () => number; restore: () => void } {
  const fdatasyncSync = fs.fdatasyncSync;
  let flushingMs = 0;
  fs.fdatasyncSync = (fd) => {
    const started = performance.now();
    try {
      fdatasyncSync(fd);
    } finally {
      flushingMs += performance.now() - started;
    }
  };
  syncBuiltinESMExports();
  return {
    takeMs: () => {
      const taken = flushingMs;
      flushingMs = 0;
      return taken;
    },
    restore: () => {
      fs.fdatasyncSync = fdatasyncSync;
      syncBuiltinESMExports();
    },
  };
}

/**
 * Starts bench/flush-probe.ts, flushing a queue line at the hot path's pace for as long as it runs,
 * once it is flushing; `times` resolves to its flush times, sorted.
 */
async function startFlushProbe(): Promise<{ times: Promise<number[]> }> {
  const probe = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      join(ROOT, "bench", "flush-probe.ts"),
      String(RATE_PER_SECOND * SECONDS),
      String(RATE_PER_SECOND),
      QUEUE_LINE.toString(),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let output = "";
  probe.stdout.setEncoding("utf8");
  const ready = new Promise<void>((resolve, reject) => {
    probe.stdout.on("data", (chunk: string) => {
      output += chunk;
      if (output.startsWith("ready\n")) resolve();
    });
    probe.once("exit", (code) =>
      reject(new Error(`the flush probe exited with code ${code} before it was ready`)),
    );
  });
  const times = new Promise<number[]>((resolve, reject) =>
    probe.once("exit", (code) =>
      code === 0
        ? resolve(JSON.parse(output.trim().split("\n").pop()!) as number[])
        : reject(new Error(`the flush probe exited with code ${code}`)),
    ),
  );
  // Reported through `ready` when the probe dies before it: not a second, unhandled rejection.
  times.catch(() => {});
  await ready;
  return { times };
}

/**
 * Records at RATE_PER_SECOND for SECONDS, timing each `record` call alone and, apart, the disk
 * flush inside it; batches go to the ledger meanwhile. With "write" durability (no flush in
 * `record`), a separate process flushes at the same pace meanwhile: the disk's flush under the
 * load the attestor and the ledger put on the machine.
 */
async function measureHotPath(
  ledger: TestLedger,
  agent: Agent,
  durability: QueueDurability,
): Promise<HotPathResult> {
  const queueDir = mkdtempSync(join(tmpdir(), "abas-bench-attestor-"));
  const attestor = await openAttestor(ledger, agent, queueDir, { durability });
  const total = RATE_PER_SECOND * SECONDS;
  const latencies: number[] = [];
  const flushes: number[] = [];
  const ownWork: number[] = [];
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  const probe = durability === "write" ? await startFlushProbe() : undefined;
  const flushClock = clockFlushes();
  loopDelay.enable();
  const cpuClock = startCpuClock(ledger.pid);
  let elapsedMs: number;
  try {
    elapsedMs = await runPaced(total, RATE_PER_SECOND, (index) => {
      const input = {
        actionType: "ToolCall",
        payload: { tool: "search", query: `q${index}`, durability },
      } as const;
      flushClock.takeMs();
      const before = performance.now();
      attestor.record(input);
      const took = performance.now() - before;
      const flushMs = flushClock.takeMs();
      latencies.push(took);
      flushes.push(flushMs);
      ownWork.push(took - flushMs);
    });
  } finally {
    flushClock.restore();
    loopDelay.disable();
  }
  const cpu = cpuClock();
  const probeFlushes = await probe?.times;
  /** CPU time over the run's time, in % of one core. */
  const busy = (cpuMs: number): number => Math.round((cpuMs / elapsedMs) * 100);
  await attestor.close();
  rmSync(queueDir, { recursive: true, force: true });
  for (const values of [latencies, flushes, ownWork]) values.sort((a, b) => a - b);
  return {
    durability,
    actions: total,
    achievedPerSecond: Math.round(total / (elapsedMs / 1000)),
    p50Ms: round3(percentile(latencies, 50)),
    p99Ms: round3(percentile(latencies, 99)),
    maxMs: round3(latencies[latencies.length - 1]!),
    flushP50Ms: round3(percentile(flushes, 50)),
    flushP99Ms: round3(percentile(flushes, 99)),
    ownWorkP50Ms: round3(percentile(ownWork, 50)),
    ownWorkP99Ms: round3(percentile(ownWork, 99)),
    loopDelayP99Ms: round3(loopDelay.percentile(99) / 1e6),
    loopDelayMaxMs: round3(loopDelay.max / 1e6),
    agentCpuPercent: busy(cpu.ownMs),
    ledgerCpuPercent: busy(cpu.otherMs),
    ...(probeFlushes === undefined
      ? {}
      : {
          probeFlushP50Ms: round3(percentile(probeFlushes, 50)),
          probeFlushP99Ms: round3(percentile(probeFlushes, 99)),
        }),
  };
}

async function balance(ledger: TestLedger, secretKey: Uint8Array): Promise<bigint> {
  return (await ledger.rpc.getBalance(await addressOf(secretKey), { commitment: "confirmed" }).send()).value;
}

/** Lamports the operator pays: one single attest, and per action over COST_ACTIONS actions in full batches. */
async function measureCost(ledger: TestLedger, agent: Agent) {
  const beforeSingle = await balance(ledger, agent.operatorKeypair);
  await agent.client.attest({
    operatorKeypair: agent.operatorKeypair,
    actionHash: await AttestationClient.hashAction("one action alone"),
    actionType: "ToolCall",
  });
  const single = beforeSingle - (await balance(ledger, agent.operatorKeypair));
  const queueDir = mkdtempSync(join(tmpdir(), "abas-bench-attestor-"));
  // The attestor's requests go through a proxy that counts them on their way to the ledger.
  const proxy = await startCountingRpcProxy(ledger.rpcUrl);
  // The delay never cuts a batch here: only full batches of 100 are sent.
  const attestor = await openAttestor({ ...ledger, rpcUrl: proxy.url }, agent, queueDir, {
    maxBatchDelayMs: 3_600_000,
  });
  const beforeBatches = await balance(ledger, agent.operatorKeypair);
  const recorded = Array.from({ length: COST_ACTIONS }, (_, index) =>
    attestor.record({ actionType: "ToolCall", payload: { cost: index } }),
  );
  const receipts = await Promise.all(recorded.map((action) => action.receipt));
  await attestor.close();
  const requests = proxy.takeCounts();
  await proxy.close();
  rmSync(queueDir, { recursive: true, force: true });
  const batched = beforeBatches - (await balance(ledger, agent.operatorKeypair));
  const perAction = Number(batched) / COST_ACTIONS;
  const batchSizes = [...new Set(receipts.map((receipt) => receipt.itemCount))];
  const batches = COST_ACTIONS / batchSizes[0]!;
  return {
    singleAttestLamports: Number(single),
    batchSizes,
    actions: COST_ACTIONS,
    lamportsPerBatchedAction: perAction,
    ratio: Math.round((Number(single) / perAction) * 10) / 10,
    batches,
    requests,
    requestsPerBatch: Object.values(requests).reduce((sum, count) => sum + count, 0) / batches,
  };
}

/**
 * DRAIN_ACTIONS actions recorded at once ("write" durability), then sent as fast as the sender
 * thread and the ledger go: how many confirmed actions a second one attestor reaches, and the CPU
 * time per batch of 100 of the agent's process (its threads together) and of the ledger's.
 */
async function measureDrain(ledger: TestLedger, agent: Agent) {
  const queueDir = mkdtempSync(join(tmpdir(), "abas-bench-attestor-"));
  const attestor = await openAttestor(ledger, agent, queueDir, { durability: "write" });
  const cpuClock = startCpuClock(ledger.pid);
  const started = performance.now();
  const run = new Date().toISOString();
  for (let index = 0; index < DRAIN_ACTIONS; index++)
    attestor.record({ actionType: "ToolCall", payload: { drain: index, run } });
  await attestor.flush();
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuClock();
  await attestor.close();
  rmSync(queueDir, { recursive: true, force: true });
  const batches = DRAIN_ACTIONS / 100;
  return {
    actions: DRAIN_ACTIONS,
    confirmedPerSecond: Math.round(DRAIN_ACTIONS / seconds),
    agentCpuMsPerBatch: Math.round(cpu.ownMs / batches),
    ledgerCpuMsPerBatch: Math.round(cpu.otherMs / batches),
  };
}

/** About as long as a flush takes: the sleeps compared with the flushes under busy cores. */
const TIMER_SLEEP_MS = 0.15;

const QUEUE_LINE = Buffer.from(`${JSON.stringify({ a: 1, h: "ab".repeat(32), t: 1, p: 0 })}\n`);

/** Appends of a queue-sized line, each flushed (fdatasync): FLUSHES back to back, or as the hot path does. */
async function timeFlushes(paced = false): Promise<{ p50Ms: number; p99Ms: number }> {
  const latencies = paced
    ? await timeAppendFlushes(QUEUE_LINE, RATE_PER_SECOND * SECONDS, RATE_PER_SECOND)
    : await timeAppendFlushes(QUEUE_LINE, FLUSHES);
  return { p50Ms: round3(percentile(latencies, 50)), p99Ms: round3(percentile(latencies, 99)) };
}

/**
 * The floor of `record` with "fsync" durability: the disk's own flush, alone (back to back, then at
 * the hot path's rate and length), then with every core kept busy by a process that only spins.
 */
async function measureDiskFlush() {
  const alone = await timeFlushes();
  const paced = await timeFlushes(true);
  const spinners = Array.from({ length: availableParallelism() }, () =>
    spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
  );
  try {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const busy = await timeFlushes();
    const timerLateness = timeTimerLateness(FLUSHES, TIMER_SLEEP_MS);
    return {
      flushes: FLUSHES,
      ...alone,
      pacedFlushes: RATE_PER_SECOND * SECONDS,
      pacedP50Ms: paced.p50Ms,
      pacedP99Ms: paced.p99Ms,
      busyCores: spinners.length,
      busyP50Ms: busy.p50Ms,
      busyP99Ms: busy.p99Ms,
      busyTimerSleepMs: TIMER_SLEEP_MS,
      busyTimerLateP50Ms: round3(percentile(timerLateness, 50)),
      busyTimerLateP99Ms: round3(percentile(timerLateness, 99)),
    };
  } finally {
    for (const spinner of spinners) spinner.kill("SIGKILL");
  }
}

/** KILLS agent processes killed with SIGKILL under load on one queue, then a resume; lost and duplicated actions. */
async function measureKills(ledger: TestLedger) {
  const agent = await registeredAgent(ledger);
  const queueDir = mkdtempSync(join(tmpdir(), "abas-bench-attestor-kill-"));
  const returned: string[] = [];
  for (let kill = 1; kill <= KILLS; kill++) {
    const recorded = await killAttestorUnderLoad(
      {
        rpcUrl: ledger.rpcUrl,
        programId: ledger.programId,
        agentSecretKey: [...agent.agentKeypair],
        operatorSecretKey: [...agent.operatorKeypair],
        queueDir,
        run: `bench kill ${kill}`,
        actionsPerTick: 2,
      },
      // Killed at a different point of the batching cycle each time.
      150 + ((kill * 97) % 300),
    );
    returned.push(...recorded);
    console.log(`  kill ${kill}/${KILLS}: ${recorded.length} actions recorded before SIGKILL`);
  }
  const resumed = await openAttestor(ledger, agent, queueDir);
  await resumed.close();
  rmSync(queueDir, { recursive: true, force: true });
  const batches = await readAgentBatches(ledger, agent.client.agentAddress);
  const leaves = countLeaves(batches);
  return {
    kills: KILLS,
    recordedBeforeKills: returned.length,
    batchesOnLedger: batches.length,
    incompleteBatches: batches.filter((batch) => !batch.isComplete).length,
    lost: returned.filter((hash) => !leaves.has(hash)).length,
    duplicated: [...leaves.values()].filter((count) => count > 1).length,
  };
}

const keptUp = (row: HotPathResult): boolean => row.achievedPerSecond >= RATE_PER_SECOND * 0.95;

function docsSection(results: {
  date: string;
  machine: string;
  hotPath: HotPathResult[];
  diskFlush?: Awaited<ReturnType<typeof measureDiskFlush>>;
  cost: Awaited<ReturnType<typeof measureCost>>;
  drain?: Awaited<ReturnType<typeof measureDrain>>;
  kills: Awaited<ReturnType<typeof measureKills>>;
}): string {
  const { cost, kills } = results;
  const number = (value: number): string => value.toLocaleString("en-US");
  return [
    docsSectionStart("attestor"),
    "## SDK: the attestor",
    "",
    `Measured with \`${COMMAND}\` on ${results.date.slice(0, 10)} on ${results.machine}, with the local ledger ` +
      "(@abas/ledger, its own process, default 400 ms slots) on the same machine, which other work shared: the " +
      "figures vary from run to run. The raw figures are in `bench/results/attestor.json`.",
    "",
    `\`record\` on the agent's hot path: ${number(RATE_PER_SECOND)} actions/s for ${SECONDS} s (payload hashing ` +
      "and the queue write included; batches of 100 are sent to the ledger meanwhile). Goal: p99 at most 1 ms.",
    "",
    "| queue durability | actions | achieved actions/s | p50 | p99 | max | its disk flush p50 / p99 | the rest of the call p50 / p99 | event-loop delay p99 / max | CPU: agent / ledger | command |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
    ...results.hotPath.map(
      (row) =>
        `| \`${row.durability}\` | ${number(row.actions)} | ${number(row.achievedPerSecond)} | ${row.p50Ms} ms | ` +
        `${row.p99Ms} ms | ${row.maxMs} ms | ` +
        (row.flushP99Ms === undefined || row.durability === "write"
          ? "none | "
          : `${row.flushP50Ms} / ${row.flushP99Ms} ms | `) +
        (row.ownWorkP99Ms === undefined ? " | " : `${row.ownWorkP50Ms} / ${row.ownWorkP99Ms} ms | `) +
        (row.loopDelayP99Ms === undefined || !keptUp(row)
          ? ""
          : `${row.loopDelayP99Ms} / ${row.loopDelayMaxMs} ms`) +
        ` | ${row.agentCpuPercent === undefined ? "" : `${row.agentCpuPercent}% / ${row.ledgerCpuPercent}%`}` +
        ` | \`${COMMAND}\` |`,
    ),
    "",
    ...results.hotPath.map(
      (row) =>
        `- \`${row.durability}\`: p99 ${row.p99Ms} ms, goal ${row.p99Ms <= 1 ? "met" : "**not met**"}` +
        (!keptUp(row)
          ? `; the agent's loop kept up ${number(row.achievedPerSecond)} actions/s, not ${number(RATE_PER_SECOND)}: ` +
            "each call waits for its own flush to the disk"
          : "") +
        ".",
    ),
    "",
    "`fsync` (the default) flushes each action to the disk before `record` returns; `write` returns once the " +
      "action is in the operating system's file cache, which survives kill -9 of the agent but not a power loss, " +
      "and flushes every 100 ms. Either way `record` only checks, hashes and appends: batches are cut, signed, " +
      "sent and their leaves published on a thread of the attestor's own. The event-loop delay " +
      "(`monitorEventLoopDelay`, 1 ms resolution) is how late the agent's own timers ran during the run: " +
      "what recording and batching cost the agent's thread beyond each `record` call; it is left out for a run " +
      "whose loop fell behind the rate, since its own `record` calls then hold the loop.",
    ...(results.diskFlush === undefined
      ? []
      : [
          "",
          `The floor of \`fsync\`: on this disk one queue line appended and flushed (\`fdatasync\`) takes ` +
            `p50 ${results.diskFlush.p50Ms} ms, p99 ${results.diskFlush.p99Ms} ms (${number(results.diskFlush.flushes)} ` +
            "flushes back to back in the queues' directory, nothing else running)" +
            (results.diskFlush.pacedP99Ms === undefined
              ? ". "
              : `, and p50 ${results.diskFlush.pacedP50Ms} ms, p99 ${results.diskFlush.pacedP99Ms} ms at the hot path's ` +
                `${number(RATE_PER_SECOND)} a second for ${SECONDS} s. `) +
            "`record` returns only after its own line is on the disk, and it is synchronous, so no two calls of one " +
            "agent ever wait for the same flush: group commit, which shares one flush among writers waiting " +
            "together, has nothing to share. The table times the flush inside each call apart from the rest of " +
            "the call (the SDK's checks, hashing and append), and gives the CPU time the agent's process (its " +
            "recording thread and the attestor's sender thread together) and the ledger's process spent during " +
            "the run, in % of one core." +
            (results.diskFlush.busyP99Ms === undefined
              ? ""
              : ` With the machine's ${results.diskFlush.busyCores} cores all kept busy by processes that only spin, the same ` +
                `flush takes p50 ${results.diskFlush.busyP50Ms} ms, p99 ${results.diskFlush.busyP99Ms} ms: ` +
                (results.diskFlush.busyP99Ms > 1
                  ? "a flush waits for the disk and then for a core to run the thread again, and busy cores alone put " +
                    "it over the goal on this machine, as the flushes inside `record` show while the agent's process " +
                    "and the ledger share its cores. `fsync` meets the goal only where a flush under the agent's " +
                    "load stays under 1 ms at p99."
                  : "busy cores alone do not slow a flush past the goal on this machine.") +
                (results.diskFlush.busyTimerLateP99Ms === undefined
                  ? ""
                  : ` Under the same spinning processes, a thread that sleeps ${results.diskFlush.busyTimerSleepMs} ms ` +
                    `at a time until a timer (\`Atomics.wait\`) runs again p50 ${results.diskFlush.busyTimerLateP50Ms} ms, ` +
                    `p99 ${results.diskFlush.busyTimerLateP99Ms} ms late (${number(results.diskFlush.flushes)} sleeps)` +
                    (results.diskFlush.busyTimerLateP99Ms * 2 < results.diskFlush.busyP99Ms
                      ? ": a thread woken by its timer gets a busy core back sooner than one woken by its flush " +
                        "(see below)."
                      : ": no sooner than a thread woken by its flush."))),
        ]),
    ...results.hotPath
      .filter((row) => row.probeFlushP99Ms !== undefined)
      .map(
        (row) =>
          `\nDuring the \`${row.durability}\` run (no flush inside \`record\`), a separate process appended and ` +
          `flushed a queue line at the same pace (\`bench/flush-probe.ts\`, started by the bench): p50 ` +
          `${row.probeFlushP50Ms} ms, p99 ${row.probeFlushP99Ms} ms` +
          (row.probeFlushP99Ms! > 1
            ? ": the load that recording, batching, sending and the ledger put on the machine puts a flush over " +
              "the goal whichever process makes it, so `fsync` cannot meet it here while they share the machine."
            : ": under this load a flush of its own stays within the goal."),
      ),
    "",
    "| lamports paid by the operator | lamports | command |",
    "| --- | ---: | --- |",
    `| one single \`attest\` | ${number(cost.singleAttestLamports)} | \`${COMMAND}\` |`,
    `| per action recorded with the attestor, ${number(cost.actions)} actions in full batches of ${cost.batchSizes.join(", ")} | ` +
      `${number(cost.lamportsPerBatchedAction)} | \`${COMMAND}\` |`,
    "",
    `An action recorded with the attestor in full batches costs 1/${cost.ratio} of a single attestation.`,
    ...(cost.requestsPerBatch === undefined
      ? []
      : [
          "",
          `The same ${number(cost.batches!)} batches took ${cost.requestsPerBatch} JSON-RPC requests each on average, ` +
            "counted by a proxy in front of the ledger (kit's RPC client sends identical requests made together as one): " +
            Object.entries(cost.requests!)
              .map(([method, count]) => `${method} ${number(count)}`)
              .join(", ") +
            ". A batch's transactions share one blockhash, and a transaction of a shape already measured " +
            "(a root of 100 at its address's bump, a chunk of leaves) is sized from it without a simulation: " +
            "the simulations are those of the first batches, in flight together, and of roots at a bump not seen before.",
        ]),
    ...(results.drain === undefined
      ? []
      : [
          "",
          `With ${number(results.drain.actions)} actions recorded at once and sent as fast as they go, one attestor ` +
            `had ${number(results.drain.confirmedPerSecond)} actions a second confirmed, and each batch of 100 cost ` +
            `the agent's process ${results.drain.agentCpuMsPerBatch} ms of CPU and the ledger's ` +
            `${results.drain.ledgerCpuMsPerBatch} ms.`,
        ]),
    "",
    `kill -9 under load (\`fsync\` durability): an agent process recording 2 actions per millisecond tick was killed with SIGKILL ` +
      `${kills.kills} times in a row on one queue, each new process resuming the queue of the one before, then a ` +
      `last attestor resumed it: ${number(kills.recordedBeforeKills)} actions whose \`record\` returned, ` +
      `${kills.batchesOnLedger} batches on the ledger (${kills.incompleteBatches} incomplete), ` +
      `**${kills.lost} lost, ${kills.duplicated} duplicated** (\`${COMMAND}\`).`,
    docsSectionEnd("attestor"),
  ].join("\n");
}

/** Writes the section, formatted alone: the rest of the page stays as its own bench wrote it. */
async function writeDocsSection(section: string): Promise<void> {
  const options = (await resolveConfig(DOCS_FILE)) ?? {};
  const formatted = (await format(section, { ...options, filepath: DOCS_FILE })).trimEnd();
  writeFileSync(DOCS_FILE, withDocsSection(readFileSync(DOCS_FILE, "utf8"), "attestor", formatted));
}

async function main(): Promise<void> {
  if (process.env.BENCH_RENDER_ONLY === "1") {
    // Renders the docs section again from the recorded figures, without measuring.
    await writeDocsSection(
      docsSection(JSON.parse(readFileSync(RESULTS_FILE, "utf8")) as Parameters<typeof docsSection>[0]),
    );
    return;
  }
  const date = new Date().toISOString();
  const machine =
    `${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? "unknown"}), Node ${process.version}, ` +
    `load average ${loadavg()[0]!.toFixed(1)} at the start`;
  console.log(`ABAS attestor benchmark — ${COMMAND} — ${date}`);
  const ledger = await startTestLedger();
  try {
    const agent = await registeredAgent(ledger);
    if (OTHERS_IDLE) {
      const stop = keepOtherThreadsIdle([ledger.pid]);
      console.log(
        "every thread but the main ones, and the ledger wholly, at SCHED_IDLE; nothing is recorded",
      );
      for (const durability of ["fsync", "write"] as const)
        console.log(await measureHotPath(ledger, agent, durability));
      stop();
      return;
    }
    const hotPath: HotPathResult[] = [];
    for (const durability of ["fsync", "write"] as const) {
      hotPath.push(await measureHotPath(ledger, agent, durability));
      console.log(hotPath[hotPath.length - 1]);
    }
    const diskFlush = await measureDiskFlush();
    console.log(diskFlush);
    const cost = await measureCost(ledger, agent);
    console.log(cost);
    const drain = await measureDrain(ledger, agent);
    console.log(drain);
    const kills = await measureKills(ledger);
    console.log(kills);
    const results = { command: COMMAND, date, machine, hotPath, diskFlush, cost, drain, kills };
    mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
    const jsonOptions = (await resolveConfig(RESULTS_FILE)) ?? {};
    writeFileSync(
      RESULTS_FILE,
      await format(JSON.stringify(results), { ...jsonOptions, filepath: RESULTS_FILE }),
    );
    await writeDocsSection(docsSection(results));
    console.log(`wrote ${RESULTS_FILE} and ${DOCS_FILE}`);
  } finally {
    await ledger.stop();
  }
}

await main();
