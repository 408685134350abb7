/**
 * `npm run demo` as a newcomer runs it: the service started (here in-process, on free ports and a
 * temporary data directory), the demo agent run as its own process against it; it must succeed,
 * every share link it prints must answer an Action describing a recorded attestation, and the
 * receipts folder its Attestor filled must verify through the web app's receipts page.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { loadServiceConfig, startService } from "../index.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const repoRoot = resolve(here, "../../../..");
const tsx = join(repoRoot, "node_modules/.bin/tsx");
const demo = join(repoRoot, "examples/demo-agent.ts");
const cliBin = join(repoRoot, "packages/cli/src/bin.ts");

/** Runs a process to its end without blocking this one, which serves the service it talks to. */
async function runToEnd(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  const child = spawn(command, args, { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, "close")) as [number | null];
  return { code, output };
}

test("npm run demo attests real actions and prints share links that answer an Action", async () => {
  // Given the service running on free ports
  const dataDir = mkdtempSync(join(tmpdir(), "abas-demo-"));
  const service = await startService(
    loadServiceConfig({ DATA_DIR: dataDir, PORT: "0", LEDGER_RPC_PORT: "0", LEDGER_WS_PORT: "0" }),
  );
  after(async () => {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  // When the demo runs against it as its own process
  const demoEnv: NodeJS.ProcessEnv = {
    ...process.env,
    RPC_URL: service.rpcUrl,
    ABAS_WEB_URL: service.webUrl,
    DEMO_DIR: join(dataDir, "demo"),
  };
  delete demoEnv.PROGRAM_ID;
  const { code, output } = await runToEnd(tsx, [demo], demoEnv);

  // Then it succeeds, having attested singly, privately and in a batch, and verified every receipt
  assert.equal(code, 0, output);
  assert.match(output, /attested: ToolCall docs\.summarise/);
  assert.match(output, /attested privately: Decision/);
  assert.match(output, /salt\s+[0-9a-f]{64} stays with the receipt/);
  assert.match(output, /attested as a batch: ToolCall ×5/);
  const attestorBatches = Number(/recorded with the attestor: ToolCall ×4 in (\d+) batch/.exec(output)?.[1]);
  assert.ok(attestorBatches >= 1, output);
  assert.doesNotMatch(output, /INVALID/);
  assert.equal(output.match(/^ {2}valid {3}/gm)?.length, 12, output);

  // And every printed share link answers 200 with an Action about a recorded attestation
  const links = [...output.matchAll(/share link\s+(\S+)/g)].map((match) => match[1]!);
  assert.equal(links.length, 4 + attestorBatches, output);
  for (const link of links) {
    assert.ok(link.startsWith(`${service.webUrl}/api/actions/verify?tx=`), link);
    const response = await fetch(link);
    assert.equal(response.status, 200, link);
    const action = (await response.json()) as Record<string, unknown>;
    assert.equal(action.type, "action");
    assert.equal(typeof action.title, "string");
    assert.equal(typeof action.icon, "string");
    assert.equal(action.error, undefined, JSON.stringify(action));
    assert.equal(action.label, "Verified on the ledger", JSON.stringify(action));
  }

  // And the printed web pages open
  const pages = [...output.matchAll(/(http:\/\/\S+\/app\/attestations\/\S+)/g)].map((match) => match[1]!);
  assert.ok(pages.length >= 4, output);
  for (const page of pages) assert.equal((await fetch(page)).status, 200, page);

  // And the receipts folder holds one file per recorded call, each verified by the web app's receipts page
  const receiptsDir = join(dataDir, "demo", "receipts");
  assert.match(output, /receipts\s+(\S+) \(one <action hash>\.json file per call\)/);
  assert.ok(output.includes(`receipts      ${receiptsDir} (`), output);
  assert.match(output, new RegExp(`verify link\\s+${service.webUrl}/app/receipts `));
  assert.equal((await fetch(`${service.webUrl}/app/receipts`)).status, 200);
  const files = readdirSync(receiptsDir);
  assert.equal(files.length, 4, files.join(", "));
  const tools: string[] = [];
  for (const name of files) {
    const body: string = JSON.stringify({
      file: name,
      content: readFileSync(join(receiptsDir, name), "utf8"),
    });
    const post = (path: string): Promise<Record<string, unknown>> =>
      fetch(`${service.webUrl}/app/receipts/${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      }).then((response) => response.json() as Promise<Record<string, unknown>>);
    const read = (await post("read")) as { receipt: { tool: string } };
    tools.push(read.receipt.tool);
    assert.deepEqual(await post("verify"), { status: "verified" }, name);
  }
  assert.deepEqual(tools.sort(), ["fs.stat", "fs.stat", "repo.package_stats", "repo.package_stats"]);

  // And the printed CLI command verifies them, as printed (the ledger named, not assumed)
  const printed = /or run\s+npm run abas -- (receipts verify .+)$/m.exec(output)?.[1];
  assert.ok(printed, output);
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.RPC_URL;
  delete env.PROGRAM_ID;
  const cli = await runToEnd(tsx, [cliBin, ...printed.split(" ")], env);
  assert.equal(cli.code, 0, cli.output);
  assert.match(cli.output, /^4\/4 receipts valid$/m);
});
