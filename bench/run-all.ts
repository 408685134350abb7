/**
 * Every benchmark in one run: the program's compute units and lamports per attestation, the SDK's
 * hashAction throughput, the REST API at 1,000,000 attestations, the indexer and the local ledger
 * over JSON-RPC. Writes
 * bench/results.json and renders docs/performance.md.
 *
 *   npm run bench
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, totalmem } from "node:os";
import { fileURLToPath } from "node:url";

import { format, resolveConfig } from "prettier";

import { measureApi, routeFiguresMarkdown, type ApiResults } from "./api.js";
import {
  docsSection,
  docsSectionEnd,
  docsSectionStart,
  withDocsSection,
  type DocsSectionName,
} from "./docs-sections.js";
import { measureHashAction, type HashActionResults } from "./hash-action.js";
import { measureIndexer, type IndexerResults } from "./indexer.js";
import { measureLedger, type LedgerResults } from "./ledger.js";
import { measureProgramCu, type ProgramCuResults } from "./program-cu.js";

const RESULTS_FILE = fileURLToPath(new URL("./results.json", import.meta.url));
const DOCS_FILE = fileURLToPath(new URL("../docs/performance.md", import.meta.url));
/** The API pass of this run: the 1,000,000-row one only, to keep the whole run short. */
const API_SIZES = [1_000_000];

const COMMANDS = {
  all: "npm run bench",
  programCu: "npm run bench:program-cu",
  hashAction: "npm run bench:hash",
  api: "npm run bench:api",
  indexer: "npm run bench:indexer",
  ledger: "npm run bench:ledger",
} as const;

interface Results {
  readonly command: string;
  readonly date: string;
  readonly durationSeconds: number;
  readonly machine: {
    readonly cores: number;
    readonly cpu: string;
    readonly memoryGiB: number;
    readonly node: string;
    readonly platform: string;
  };
  readonly commands: typeof COMMANDS;
  readonly programCu: ProgramCuResults;
  readonly hashAction: HashActionResults;
  readonly api: ApiResults;
  readonly indexer: IndexerResults;
  readonly ledger: LedgerResults;
}

const STEPS = 5;
const runStarted = performance.now();
const elapsed = (): string => `${((performance.now() - runStarted) / 1000).toFixed(0)} s`;

async function step<T>(index: number, title: string, command: string, run: () => Promise<T>): Promise<T> {
  console.log(`\n[${index}/${STEPS}] ${title} (${command}) — started at ${elapsed()}`);
  const started = performance.now();
  const result = await run();
  console.log(`[${index}/${STEPS}] ${title}: done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
}

const number = (value: number): string => value.toLocaleString("en-US");

/** The sections of docs/performance.md this run writes, in page order. */
const RUN_SECTIONS: readonly DocsSectionName[] = ["run", "program-cu", "hash", "api", "indexer", "ledger"];

/** `lines` between the markers of `name`. */
const marked = (name: DocsSectionName, lines: readonly string[]): string[] => [
  docsSectionStart(name),
  "",
  ...lines,
  "",
  docsSectionEnd(name),
  "",
];

const INDEXER_GOAL_TPS = 1_500;
const INDEXER_GOAL_P99_MS = 50;
const LEDGER_GOAL_TPS = 1_000;
const LEDGER_GOAL_RATIO = 0.2;
const API_GOALS = { firstPage: 0.5, otherPages: 0.25, p99Ms: 20 } as const;
const verdict = (met: boolean): string => (met ? "met" : "**not met**");

function render(results: Results): string {
  const { machine, programCu, hashAction, api, indexer, ledger } = results;
  const lines: string[] = [
    "# Performance",
    "",
    docsSectionStart("run"),
    "",
    `Measured by \`${results.command}\` on ${results.date.slice(0, 10)} in ${Math.round(results.durationSeconds)} s, ` +
      `on ${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, Node ${machine.node}, ${machine.platform}. ` +
      "Each figure names the command that measures it on its own; the raw figures are in `bench/results.json`.",
    "",
    `> These figures come from a shared ${machine.cores}-core machine and vary by about ±20% from one run to the next; ` +
      "compare ratios measured in the same run rather than absolute figures across runs.",
    "",
    docsSectionEnd("run"),
    "",
    docsSectionStart("program-cu"),
    "",
    "## Program: compute units and cost",
    "",
    `The built program on ${programCu.runtime}; compute units of the ABAS instruction ` +
      "alone, from the runtime's “consumed” log line. Creating an account costs more when its canonical bump is lower, " +
      "so each instruction runs on fresh addresses: median and maximum.",
    "",
    "| instruction | samples | median CU | max CU | transaction bytes | command |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const row of programCu.instructions) {
    lines.push(
      `| ${row.instruction} | ${row.samples} | ${number(row.computeUnits)} | ${number(row.maxComputeUnits)} | ` +
        `${number(row.transactionBytes)} | \`${COMMANDS.programCu}\` |`,
    );
  }
  const { single, batchOf100, singleToBatchItemRatio } = programCu.lamportsPerAttestation;
  lines.push(
    "",
    "| lamports per attestation (fee + rent, paid by the operator) | lamports | command |",
    "| --- | ---: | --- |",
    `| single attestation (fee ${number(single.feeLamports)} + rent ${number(single.rentLamports)}) | ${number(single.totalLamports)} | \`${COMMANDS.programCu}\` |`,
    `| in a batch of 100 (${batchOf100.transactions} transactions: fee ${number(batchOf100.feeLamports)} + rent ${number(batchOf100.rentLamports)} = ${number(batchOf100.totalLamports)}) | ${number(batchOf100.perAttestationLamports)} | \`${COMMANDS.programCu}\` |`,
    "",
    `An action in a full batch costs 1/${singleToBatchItemRatio} of a single attestation (goal: at most 1/50); ` +
      `the heaviest publish chunk took ${number(programCu.maxPublishChunkComputeUnits)} CU (goal: at most 15,000).`,
    "",
    docsSectionEnd("program-cu"),
    "",
    docsSectionStart("hash"),
    "",
    "## SDK: hashAction",
    "",
    `\`AttestationClient.hashAction\` (\`node:crypto\` SHA-256 after a well-formedness check) against \`node:crypto\` ` +
      `SHA-256 to hex of the same strings: ${number(hashAction.payloads)} canonicalized JSON actions ` +
      `(tool calls, model invocations, decisions) of ${number(hashAction.meanPayloadBytes)} bytes on average, ` +
      `one call at a time, best of ${hashAction.rounds} alternating rounds of ${hashAction.roundMs} ms.`,
    "",
    "| figure | value | command |",
    "| --- | ---: | --- |",
    `| \`hashAction\` | ${number(hashAction.hashActionPerSecond)} hashes/s (${hashAction.hashActionMiBPerSecond} MiB/s) | \`${COMMANDS.hashAction}\` |`,
    `| \`node:crypto\` SHA-256 | ${number(hashAction.nodeCryptoPerSecond)} hashes/s (${hashAction.nodeCryptoMiBPerSecond} MiB/s) | \`${COMMANDS.hashAction}\` |`,
    `| ratio hashAction / node:crypto | ${hashAction.ratio} | \`${COMMANDS.hashAction}\` |`,
    "",
    docsSectionEnd("hash"),
    "",
    docsSectionStart("api"),
    "",
    "## REST API",
    "",
    "SQLite, and PostgreSQL when `DATABASE_URL` is set; the server (`abas-server`, a child process, " +
      "LOG_LEVEL=warn, rate limit raised out of the way) and autocannon share the machine; " +
      `${api.settings.connections} connections; each route in ${api.settings.rounds} rounds of ` +
      `${api.settings.roundSeconds} s, each right after a round of ping (its ratio compares the two under the same ` +
      `load; p50 and p99: the highest of the rounds), after a ${api.settings.warmupSeconds} s warm-up; ` +
      `${number(api.settings.agents)} agents with Zipf-distributed activity. ` +
      "Repeated URLs are answered from the server's page cache (re-validated against the " +
      "attestations' version at most every 100 ms); the last route of each pass requests " +
      `${number(api.settings.distinctCursors)} distinct cursor pages in turn, which the cache cannot hold, ` +
      "so it measures the database query and serialisation. Server CPU per request: the server process's user " +
      "and system time during the route's rounds (from /proc, in 10 ms ticks) over their requests; autocannon's " +
      "own CPU is not in it.",
    "",
    ...routeFiguresMarkdown(api.sizes, COMMANDS.api),
  );
  lines.push("", ...apiGoals(api), "", docsSectionEnd("api"), "", docsSectionStart("indexer"));
  lines.push(
    "",
    "## Indexer",
    "",
    `A ledger, ${indexer.ledger.process}, holding ${number(indexer.ledger.singles)} single attestations ` +
      `and ${number(indexer.ledger.batches)} batches of ${indexer.ledger.batchSize}, indexed from scratch; then, with ` +
      "`abas-indexer` running as its own process, attestations sent one after the other through the SDK. " +
      "The API reads the same database without a cache, so the delay to the row is the delay to the API.",
    "",
    "| database | attestations | transactions | seconds | attestations/s | transactions/s | load average | command |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
  );
  const ceiling = indexer.fetchCeiling;
  lines.push(
    `| (fetch only: \`getTransaction\` in batches of ${ceiling.batchSize}, nothing decoded or written) | | ` +
      `${number(ceiling.transactions)} | ${ceiling.seconds} | | ${number(ceiling.transactionsPerSecond)} | ` +
      `${ceiling.loadAverage} | \`${COMMANDS.indexer}\` |`,
  );
  for (const ingest of indexer.ingest) {
    lines.push(
      `| ${ingest.database} | ${number(ingest.attestations)} | ${number(ingest.transactions)} | ${ingest.seconds} | ` +
        `${number(ingest.attestationsPerSecond)} | ${number(ingest.transactionsPerSecond)} | ${ingest.loadAverage} | ` +
        `\`${COMMANDS.indexer}\` |`,
    );
  }
  lines.push(
    "",
    "| database | samples | delay | p50 | p99 | max | command |",
    "| --- | ---: | --- | ---: | ---: | ---: | --- |",
  );
  for (const latency of indexer.latency) {
    for (const [label, figures] of [
      ["confirmed attest() → row", latency.receiptToRow],
      ["attest() call → row", latency.attestCallToRow],
    ] as const) {
      lines.push(
        `| ${latency.database} | ${latency.samples} | ${label} | ${figures.p50Ms} ms | ${figures.p99Ms} ms | ` +
          `${figures.maxMs} ms | \`${COMMANDS.indexer}\` |`,
      );
    }
  }
  lines.push("", ...indexerGoals(indexer), "", docsSectionEnd("indexer"), "");
  lines.push(...marked("ledger", renderLedger(ledger)));
  return lines.join("\n");
}

function renderLedger(ledger: LedgerResults): string[] {
  const { rpc, inProcess } = ledger;
  return [
    "## Local ledger",
    "",
    `Attest transactions (${ledger.transaction}), signed before the clock starts. Over JSON-RPC: ${rpc.process}; ` +
      `${rpc.clients} clients in the benchmark's process, each its own \`@solana/kit\` RPC client, send ` +
      `${number(rpc.transactions)} transactions one after the other with \`sendTransaction\` and confirm them with ` +
      "`getSignatureStatuses` in groups of 16. In process: the same kind of transactions sent one after the other " +
      `to litesvm's own \`sendTransaction\`, in the same run (half before the JSON-RPC pass, half after). Load average at the start: ${ledger.machine.loadAverageAtStart}.`,
    "",
    "| path | transactions | accepted/s | confirmed/s | command |",
    "| --- | ---: | ---: | ---: | --- |",
    `| JSON-RPC, ${rpc.clients} clients | ${number(rpc.transactions)} | ${number(rpc.acceptedPerSecond)} | ${number(rpc.confirmedPerSecond)} | \`${COMMANDS.ledger}\` |`,
    `| ${inProcess.runtime} | ${number(inProcess.transactions)} | ${number(inProcess.perSecond)} | ${number(inProcess.perSecond)} | \`${COMMANDS.ledger}\` |`,
    `| \`getHealth\` from the same ${rpc.clients} clients (no work behind it) | ${number(rpc.transactions)} | ${number(rpc.getHealthPerSecond)} | | \`${COMMANDS.ledger}\` |`,
    "",
    `Confirmed over JSON-RPC / litesvm in process: **${ledger.ratio}** (\`${COMMANDS.ledger}\`).`,
    "",
    `The floor: a transaction is confirmed only once the fdatasync covering its log record has returned ` +
      `(one append of ${number(1500)} bytes plus fdatasync on this disk: p50 ${ledger.fdatasync.p50Ms} ms, ` +
      `p99 ${ledger.fdatasync.p99Ms} ms over ${ledger.fdatasync.samples} samples, \`${COMMANDS.ledger}\`). ` +
      "Transactions sent while one sync runs share the next one (group commit), so the disk costs one sync per " +
      `batch rather than per transaction; but each of the ${rpc.clients} clients waits for its confirmation before ` +
      `sending again, so at most ${rpc.clients} transactions share a sync, and throughput is at most ` +
      `${rpc.clients} / (HTTP round trip + the batch's execution + one fdatasync). ` +
      "The `getHealth` row is the first term alone, on the same machine in the same run.",
    "",
    `Goal: at least ${number(LEDGER_GOAL_TPS)} confirmed/s, i.e. ${LEDGER_GOAL_RATIO} of litesvm in process: ` +
      `${number(rpc.confirmedPerSecond)}/s (${verdict(rpc.confirmedPerSecond >= LEDGER_GOAL_TPS)}), ratio ` +
      `${ledger.ratio} (${verdict(ledger.ratio >= LEDGER_GOAL_RATIO)}).`,
  ];
}

/** Each database's list routes against the goals, as shares of ping. */
function apiGoals(api: ApiResults): string[] {
  return api.sizes.map((size) => {
    const lists = size.routes.filter((route) => route.route.includes("/attestations"));
    const first = lists.find((route) => route.route.endsWith("?limit=20"));
    const others = lists.filter((route) => route !== first);
    const lowest = Math.min(...others.map((route) => route.toPing));
    const p99 = Math.max(...lists.map((route) => route.latencyP99Ms));
    return (
      `- Goals, ${size.database}: first page ${first?.toPing} of ping (≥ ${API_GOALS.firstPage}: ` +
      `${verdict((first?.toPing ?? 0) >= API_GOALS.firstPage)}); other list routes at least ${lowest} ` +
      `(≥ ${API_GOALS.otherPages}: ${verdict(lowest >= API_GOALS.otherPages)}); p99 at most ${p99} ms ` +
      `(≤ ${API_GOALS.p99Ms} ms: ${verdict(p99 <= API_GOALS.p99Ms)}).`
    );
  });
}

function indexerGoals(indexer: IndexerResults): string[] {
  const ceiling = indexer.fetchCeiling.transactionsPerSecond;
  return [
    ...indexer.ingest.map(
      (ingest) =>
        `- Goal, ${ingest.database}: backfill of at least ${number(INDEXER_GOAL_TPS)} transactions/s: ` +
        `${number(ingest.transactionsPerSecond)}/s, ${Math.round((ingest.transactionsPerSecond / ceiling) * 100) / 100} ` +
        `of the fetch-only ceiling (${verdict(ingest.transactionsPerSecond >= INDEXER_GOAL_TPS)}).`,
    ),
    ...indexer.latency.map(
      (latency) =>
        `- Goal, ${latency.database}: confirmed receipt to row at most ${INDEXER_GOAL_P99_MS} ms at p99: ` +
        `${latency.receiptToRow.p99Ms} ms (${verdict(latency.receiptToRow.p99Ms <= INDEXER_GOAL_P99_MS)}).`,
    ),
  ];
}

async function main(): Promise<void> {
  const date = new Date().toISOString();
  console.log(`ABAS benchmarks — ${COMMANDS.all} — ${date}`);
  const programCu = await step(1, "program compute units", COMMANDS.programCu, measureProgramCu);
  const hashAction = await step(2, "SDK hashAction", COMMANDS.hashAction, measureHashAction);
  const api = await step(3, "REST API at 1,000,000 attestations", COMMANDS.api, () => measureApi(API_SIZES));
  const indexer = await step(4, "indexer", COMMANDS.indexer, measureIndexer);
  const ledger = await step(5, "local ledger over JSON-RPC", COMMANDS.ledger, measureLedger);
  const cpu = cpus();
  const results: Results = {
    command: COMMANDS.all,
    date,
    durationSeconds: Math.round((performance.now() - runStarted) / 100) / 10,
    machine: {
      cores: availableParallelism(),
      cpu: cpu[0]?.model.trim() ?? "unknown",
      memoryGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
    },
    commands: COMMANDS,
    programCu,
    hashAction,
    api,
    indexer,
    ledger,
  };
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  mkdirSync(fileURLToPath(new URL("../docs/", import.meta.url)), { recursive: true });
  // Formatted as `npm run lint` expects, so a fresh run leaves the tree lint-clean.
  const options = (await resolveConfig(DOCS_FILE)) ?? {};
  // Only this run's sections are replaced: the others, and the history written by hand between
  // them, stay.
  const rendered = render(results);
  let page = existsSync(DOCS_FILE) ? readFileSync(DOCS_FILE, "utf8") : "";
  if (page === "") page = rendered;
  else for (const name of RUN_SECTIONS) page = withDocsSection(page, name, docsSection(rendered, name));
  writeFileSync(DOCS_FILE, await format(page, { ...options, filepath: DOCS_FILE }));
  console.log(`\nwrote bench/results.json and docs/performance.md in ${elapsed()}`);
}

await main();
