/**
 * How fast the MCP server answers a host: the time from spawning it to the answer of its first
 * `tools/list` request (after `initialize` and `notifications/initialized`), which is what a host
 * waits for before it can offer the tools to a model.
 *
 * The package is packed with `npm pack` (which bundles it) and installed offline into a temporary
 * directory, then started BENCH_RUNS times (default 20) in each of two ways: `npx -y @abas/mcp`
 * (what the MCP config runs) and `node node_modules/@abas/mcp/dist/abas-mcp.js` (the server alone,
 * without npx). No service needs to run: listing tools makes no network call.
 *
 * Writes bench/results/mcp-startup.json and the figures in docs/mcp.md.
 *
 *   npx tsx bench/mcp-startup.ts
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { format, resolveConfig } from "prettier";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PACKAGE_DIR = join(ROOT, "packages", "mcp");
const RESULTS_FILE = join(ROOT, "bench", "results", "mcp-startup.json");
const DOCS_FILE = join(ROOT, "docs", "mcp.md");
const DOCS_START = "<!-- bench:mcp-startup:start -->";
const DOCS_END = "<!-- bench:mcp-startup:end -->";
const COMMAND = "npx tsx bench/mcp-startup.ts";
const RUNS = Number(process.env.BENCH_RUNS ?? 20);

interface Mode {
  readonly name: string;
  readonly command: string;
  readonly args: string[];
}

interface ModeResult {
  readonly mode: string;
  readonly runsMs: number[];
  readonly minMs: number;
  readonly medianMs: number;
  readonly maxMs: number;
}

function packAndInstall(workDir: string): string {
  const packed = execFileSync("npm", ["pack", "--json", "--pack-destination", workDir], {
    cwd: PACKAGE_DIR,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [{ filename }] = JSON.parse(packed.slice(packed.indexOf("["))) as [{ filename: string }];
  const hostDir = join(workDir, "host");
  mkdirSync(hostDir);
  writeFileSync(join(hostDir, "package.json"), JSON.stringify({ name: "mcp-host", private: true }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--offline", join(workDir, filename)], {
    cwd: hostDir,
    stdio: "ignore",
  });
  return hostDir;
}

/** Milliseconds from spawn to the tools/list answer. */
async function timeToToolsList(mode: Mode, cwd: string): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "warn" };
  delete env.ABAS_API_KEY;
  const started = performance.now();
  const child = spawn(mode.command, mode.args, { cwd, env, stdio: ["pipe", "pipe", "ignore"] });
  const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  const elapsed = await new Promise<number>((resolve, reject) => {
    let buffered = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      for (const line of buffered.split("\n").slice(0, -1)) {
        const message = JSON.parse(line) as { id?: number; result?: { tools?: unknown[] } };
        if (message.id === 2 && message.result?.tools?.length === 3) resolve(performance.now() - started);
      }
      buffered = buffered.slice(buffered.lastIndexOf("\n") + 1);
    });
    child.once("exit", (code) => reject(new Error(`${mode.name} exited with ${code} before answering`)));
  });
  child.stdin.end();
  await new Promise((resolve) => child.once("exit", resolve));
  return elapsed;
}

const round1 = (value: number) => Math.round(value * 10) / 10;

function summarize(mode: string, runsMs: number[]): ModeResult {
  const sorted = [...runsMs].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median =
    sorted.length % 2 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return {
    mode,
    runsMs: runsMs.map(round1),
    minMs: round1(sorted[0]!),
    medianMs: round1(median),
    maxMs: round1(sorted.at(-1)!),
  };
}

function writeDocs(
  results: ModeResult[],
  context: { date: string; machine: string; bundleKiB: number },
): void {
  const table = [
    "| started as | runs | min | median | max |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...results.map(
      (r) => `| \`${r.mode}\` | ${r.runsMs.length} | ${r.minMs} ms | ${r.medianMs} ms | ${r.maxMs} ms |`,
    ),
  ];
  const section = [
    DOCS_START,
    `Measured with \`${COMMAND}\` on ${context.date}: ${context.machine}; the packed package installed ` +
      `offline in a temporary directory (bundle ${context.bundleKiB} KiB); time from spawning the process to ` +
      "the answer of the first `tools/list` (after `initialize`), each run a fresh process.",
    "",
    ...table,
    "",
    "The raw figures are in `bench/results/mcp-startup.json`.",
    DOCS_END,
  ].join("\n");
  const docs = readFileSync(DOCS_FILE, "utf8");
  const start = docs.indexOf(DOCS_START);
  const end = docs.indexOf(DOCS_END);
  if (start === -1 || end === -1) throw new Error(`${DOCS_FILE} has no ${DOCS_START} … ${DOCS_END} section`);
  writeFileSync(DOCS_FILE, `${docs.slice(0, start)}${section}${docs.slice(end + DOCS_END.length)}`);
}

async function main(): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), "abas-mcp-bench-"));
  try {
    const hostDir = packAndInstall(workDir);
    const bundle = join(hostDir, "node_modules", "@abas", "mcp", "dist", "abas-mcp.js");
    const modes: Mode[] = [
      { name: "npx -y @abas/mcp", command: "npx", args: ["-y", "@abas/mcp"] },
      { name: "node dist/abas-mcp.js", command: process.execPath, args: [bundle] },
    ];
    const results: ModeResult[] = [];
    for (const mode of modes) {
      const runs: number[] = [];
      for (let i = 0; i < RUNS; i++) runs.push(await timeToToolsList(mode, hostDir));
      results.push(summarize(mode.name, runs));
      console.log(`${mode.name}: median ${results.at(-1)!.medianMs} ms over ${RUNS} runs`);
    }
    const cpu = cpus();
    const context = {
      date: new Date().toISOString().slice(0, 10),
      machine: `${cpu.length} × ${cpu[0]?.model.trim() ?? "CPU"}, Node ${process.version}`,
      bundleKiB: Math.round(readFileSync(bundle).length / 1024),
    };
    mkdirSync(join(ROOT, "bench", "results"), { recursive: true });
    const report = JSON.stringify({ command: COMMAND, ...context, results });
    const prettierOptions = { ...(await resolveConfig(RESULTS_FILE)), parser: "json" };
    writeFileSync(RESULTS_FILE, await format(report, prettierOptions));
    writeDocs(results, context);
    console.log(`wrote ${RESULTS_FILE} and ${DOCS_FILE}`);
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
