/**
 * The latency `abas-mcp-proxy` adds to a tools/call round trip: the official MCP client calls
 * server-everything's `echo` directly and through the proxy (each durability mode), calls
 * interleaved so that the machine's load weighs on each alike, against a real `abas-ledger` that
 * receives the batches meanwhile. Every proxied call must end up with a receipt. Writes
 * bench/results/mcp-proxy.json and its section of docs/performance.md.
 *
 *   npm run bench:mcp-proxy            (BENCH_CALLS=2000 per client by default)
 *   BENCH_RENDER_ONLY=1 npm run bench:mcp-proxy   (the docs section again, from the recorded figures)
 *   BENCH_OTHERS_IDLE=1 npm run bench:mcp-proxy   (a diagnosis: every thread but the main ones, and
 *     the ledger wholly, at SCHED_IDLE (idle-threads.ts); printed, not recorded)
 *   BENCH_MESSAGE_BYTES=262144 BENCH_CALLS=200 npm run bench:mcp-proxy   (echo messages of that
 *     size, so that the arguments and the result each carry it; printed, not recorded)
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

import { format, resolveConfig } from "prettier";

import { docsSectionEnd, docsSectionStart, withDocsSection } from "./docs-sections.js";
import { keepOtherThreadsIdle } from "./idle-threads.js";
import { startLedgerWithAgent } from "../packages/mcp-proxy/src/__tests__/support/ledger-and-agent.js";
import {
  connectClient,
  EVERYTHING_SERVER,
  proxyCommand,
  proxyOptions,
  type ConnectedClient,
} from "../packages/mcp-proxy/src/__tests__/support/proxy-process.js";
import { waitForReceipts } from "../packages/mcp-proxy/src/__tests__/support/receipts.js";

const COMMAND = "npm run bench:mcp-proxy";
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RESULTS_FILE = join(ROOT, "bench", "results", "mcp-proxy.json");
const DOCS_FILE = join(ROOT, "docs", "performance.md");
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const WARM_UP = 100;
const OTHERS_IDLE = process.env.BENCH_OTHERS_IDLE === "1";
/** Bytes of each echo message when set (a diagnosis of large calls); short messages otherwise. */
const MESSAGE_BYTES =
  process.env.BENCH_MESSAGE_BYTES === undefined ? undefined : Number(process.env.BENCH_MESSAGE_BYTES);

const BARE_PIPE = `const child = require("node:child_process").spawn(process.argv[1], process.argv.slice(2), { stdio: ["pipe", "pipe", "inherit"] });
process.stdin.pipe(child.stdin); child.stdout.pipe(process.stdout); child.on("exit", (code) => process.exit(code ?? 1));`;

type Route = { name: string; connected: ConnectedClient; receiptsDir?: string; samples: number[] };
type RouteResult = { route: string; calls: number; p50Ms: number; p99Ms: number; maxMs: number };

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
}

const round = (ms: number): number => Math.round(ms * 1000) / 1000;

async function echo(route: Route, call: number): Promise<number> {
  const started = performance.now();
  const message = `call ${call}`;
  await route.connected.client.callTool({
    name: "echo",
    arguments: { message: MESSAGE_BYTES === undefined ? message : message.padEnd(MESSAGE_BYTES, "x") },
  });
  return performance.now() - started;
}

function summary(route: Route): RouteResult {
  const sorted = [...route.samples].sort((a, b) => a - b);
  return {
    route: route.name,
    calls: sorted.length,
    p50Ms: round(percentile(sorted, 0.5)),
    p99Ms: round(percentile(sorted, 0.99)),
    maxMs: round(sorted[sorted.length - 1]!),
  };
}

function docsSection(results: {
  date: string;
  machine: string;
  loadAtEnd: number;
  routes: RouteResult[];
  receipts: Record<string, number>;
}): string {
  const [direct, ...others] = results.routes;
  const proxied = others.filter((route) => route.route.startsWith("proxy"));
  const added = (route: RouteResult, key: "p50Ms" | "p99Ms") => round(route[key] - direct![key]).toFixed(3);
  const pipe = others.find((route) => route.route === "bare Node pipe");
  const againstPipe = (route: RouteResult, key: "p50Ms" | "p99Ms") =>
    round(route[key] - pipe![key]).toFixed(3);
  return [
    docsSectionStart("mcp-proxy"),
    "## MCP proxy: latency added to a tools/call",
    "",
    `\`${COMMAND}\` (${results.date}; ${results.machine}, ${results.loadAtEnd.toFixed(1)} at the end). The official MCP client calls server-everything's \`echo\` ${direct!.calls} times on each route, the routes interleaved call by call: directly, through a bare Node process that only pipes both ways (the cost of one more process on the path), and through \`abas-mcp-proxy\` in each durability mode while it sends its batches to a local \`abas-ledger\`. "Added" is against the direct route. The goal is at most 2 ms added at p99.`,
    "",
    "| Route | p50 (ms) | p99 (ms) | max (ms) | added p50 (ms) | added p99 (ms) | receipts |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    `| direct | ${direct!.p50Ms} | ${direct!.p99Ms} | ${direct!.maxMs} | | | |`,
    ...others.map(
      (route) =>
        `| ${route.route} | ${route.p50Ms} | ${route.p99Ms} | ${route.maxMs} | ${added(route, "p50Ms")} | ${added(route, "p99Ms")} | ${route.route in results.receipts ? `${results.receipts[route.route]} of ${route.calls + WARM_UP}` : ""} |`,
    ),
    "",
    `The goal is ${Number(added(proxied[0]!, "p99Ms")) <= 2 ? "met" : "not met"} in this run: the default ("write") adds ${added(proxied[0]!, "p99Ms")} ms at p99 and ${added(proxied[0]!, "p50Ms")} ms at p50. At this load the direct calls' own p99 is already ${direct!.p99Ms} ms; the bare pipe's row shows what one more process costs at this load, recording nothing.${pipe === undefined ? "" : ` Against the bare pipe (the same processes on the path, recording nothing) the proxy ("write") differs by ${againstPipe(proxied[0]!, "p99Ms")} ms at p99 and ${againstPipe(proxied[0]!, "p50Ms")} ms at p50.`} The proxy's thread only forwards, hashes and appends each call to its queue; batches are signed and sent on the attestor's own thread and receipt files are written by the file system's threads.`,
    "",
    '"write" (the default) puts each call in the OS file cache before the response is forwarded: it survives kill -9 of the proxy, not a power loss. "fsync" also survives power loss, at the cost of a disk flush per call, which the table shows. Choose with `--durability` (`ABAS_DURABILITY`).',
    docsSectionEnd("mcp-proxy"),
  ].join("\n");
}

async function writeDocsSection(recorded: Parameters<typeof docsSection>[0]): Promise<void> {
  const options = (await resolveConfig(DOCS_FILE)) ?? {};
  const section = (await format(docsSection(recorded), { ...options, filepath: DOCS_FILE })).trimEnd();
  writeFileSync(DOCS_FILE, withDocsSection(readFileSync(DOCS_FILE, "utf8"), "mcp-proxy", section));
}

async function main(): Promise<void> {
  if (process.env.BENCH_RENDER_ONLY === "1") {
    // Renders the docs section again from the recorded figures, without measuring.
    await writeDocsSection(
      JSON.parse(readFileSync(RESULTS_FILE, "utf8")) as Parameters<typeof docsSection>[0],
    );
    return;
  }
  const date = new Date().toISOString();
  const machine =
    `${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? "unknown"}), Node ${process.version}, ` +
    `load average ${loadavg()[0]!.toFixed(1)} at the start`;
  console.log(`ABAS MCP proxy benchmark — ${COMMAND} — ${date}`);
  const setup = await startLedgerWithAgent();
  const routes: Route[] = [];
  try {
    const server = [process.execPath, EVERYTHING_SERVER, "stdio"];
    routes.push({ name: "direct", connected: await connectClient(server), samples: [] });
    // The cost of one more process on the path alone: Node piping both ways, recording nothing.
    routes.push({
      name: "bare Node pipe",
      connected: await connectClient([process.execPath, "-e", BARE_PIPE, ...server]),
      samples: [],
    });
    for (const durability of ["write", "fsync"] as const) {
      const dirs = {
        queueDir: join(setup.workDir, `queue-${durability}`),
        receiptsDir: join(setup.workDir, `receipts-${durability}`),
      };
      const options = [
        ...proxyOptions(setup, dirs),
        "--durability",
        durability,
        "--max-batch-delay-ms",
        "2000",
      ];
      routes.push({
        name: `proxy, ${durability}`,
        connected: await connectClient(proxyCommand(options, server)),
        receiptsDir: dirs.receiptsDir,
        samples: [],
      });
    }
    const stopIdling = OTHERS_IDLE ? keepOtherThreadsIdle([setup.ledger.pid]) : undefined;
    for (let call = 0; call < WARM_UP; call++) for (const route of routes) await echo(route, call);
    for (let call = 0; call < CALLS; call++) {
      for (const route of routes) route.samples.push(await echo(route, WARM_UP + call));
    }
    stopIdling?.();
    const results = routes.map(summary);
    console.table(results);
    if (OTHERS_IDLE || MESSAGE_BYTES !== undefined) {
      console.log(
        OTHERS_IDLE
          ? "every thread but the main ones, and the ledger wholly, at SCHED_IDLE; nothing is recorded"
          : `echo messages of ${MESSAGE_BYTES} bytes; nothing is recorded`,
      );
      return;
    }
    const receipts: Record<string, number> = {};
    for (const route of routes) {
      if (route.receiptsDir === undefined) continue;
      receipts[route.name] = (await waitForReceipts(route.receiptsDir, CALLS + WARM_UP, 600_000)).length;
    }
    console.log("receipts", receipts);
    const loadAtEnd = loadavg()[0]!;
    const recorded = { command: COMMAND, date, machine, loadAtEnd, routes: results, receipts };
    mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
    writeFileSync(RESULTS_FILE, `${JSON.stringify(recorded, null, 2)}\n`);
    await writeDocsSection(recorded);
    console.log(`wrote ${RESULTS_FILE} and ${DOCS_FILE}`);
  } finally {
    for (const route of routes) await route.connected.client.close().catch(() => {});
    await setup.stop();
  }
}

await main();
