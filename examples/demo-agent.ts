/**
 * `npm run demo`: an example agent that takes real actions on this machine (it reads the
 * repository's docs, checks the program's checksum, decides from what it found, calls local
 * tools) and attests every one of them with @abas/sdk against the running service: one by one,
 * as a batch, and through the Attestor, which records tool calls on the agent's hot path and
 * batches them, keeping each call's receipt in a receipts folder the web app and the CLI verify.
 *
 *   npm start        # in another terminal: ledger, indexer, REST API, web app
 *   npm run demo
 *
 * Settings: RPC_URL (default http://127.0.0.1:8899), ABAS_WEB_URL (default http://127.0.0.1:8080),
 * PROGRAM_ID (default: the local ledger's program), DEMO_DIR (where the attestor's queue and the
 * receipts folder go; default: a new folder under the system's temporary directory).
 */
import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { readdir, readFile, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { writeReceiptFile, type RecordedToolCall } from "@abas/mcp-proxy";
import {
  AttestationClient,
  verifyReceipt,
  type AttestationReceipt,
  type BatchAttestationResult,
  type BatchItemReceipt,
  type Receipt,
} from "@abas/sdk";
import { Attestor } from "@abas/sdk/attestor";
import { createSolanaRpc, generateKeyPairSigner, lamports } from "@solana/kit";

const rpcUrl = (process.env.RPC_URL || "http://127.0.0.1:8899").replace(/\/+$/, "");
const webUrl = (process.env.ABAS_WEB_URL || "http://127.0.0.1:8080")
  .replace(/\/+$/, "")
  .replace(/\/api\/v1$/, "");
const programId = process.env.PROGRAM_ID || undefined;
const repoRoot = resolve(fileURLToPath(new URL(".", import.meta.url)), "..");

class DemoError extends Error {
  override readonly name = "DemoError";
}

// ---------------------------------------------------------------------------------------------
// The agent's actions: plain functions that do real work on this machine.

interface DocSummary {
  readonly file: string;
  readonly lines: number;
  readonly words: number;
  readonly headings: string[];
}

/** Reads every docs/*.md file and summarises it: size and section titles. */
async function summariseDocs(): Promise<DocSummary[]> {
  const dir = join(repoRoot, "docs");
  const files = (await readdir(dir)).filter((name) => name.endsWith(".md")).sort();
  return Promise.all(
    files.map(async (name) => {
      const text = await readFile(join(dir, name), "utf8");
      return {
        file: `docs/${name}`,
        lines: text.split("\n").length,
        words: text.split(/\s+/).filter(Boolean).length,
        headings: [...text.matchAll(/^## (.+)$/gm)].map((match) => match[1]!),
      };
    }),
  );
}

interface ChecksumResult {
  readonly file: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly recorded: string | null;
  readonly matches: boolean;
}

/** SHA-256 of the committed program binary, compared with the checksum recorded beside it. */
async function checksumProgram(): Promise<ChecksumResult> {
  const file = join(repoRoot, "program/dist/abas_attestation.so");
  const bytes = await readFile(file);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const recordedText = await readFile(`${file}.sha256`, "utf8").catch(() => "");
  const recorded = /^[0-9a-f]{64}/.exec(recordedText)?.[0] ?? null;
  return {
    file: relative(repoRoot, file),
    bytes: bytes.length,
    sha256,
    recorded,
    matches: recorded === sha256,
  };
}

/** The local tools the agent may call, by name. */
const tools = {
  /** Counts the TypeScript source files and lines of one package. */
  async "repo.package_stats"(args: { package: string }) {
    const src = join(repoRoot, "packages", args.package, "src");
    let files = 0;
    let lines = 0;
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) await walk(join(dir, entry.name));
        else if (entry.name.endsWith(".ts")) {
          files += 1;
          lines += (await readFile(join(dir, entry.name), "utf8")).split("\n").length;
        }
      }
    };
    await walk(src).catch(() => undefined);
    return { package: args.package, files, lines };
  },
  /** Size and modification time of a file. */
  async "fs.stat"(args: { path: string }) {
    const info = await stat(join(repoRoot, args.path));
    return { path: args.path, bytes: info.size, modified: info.mtime.toISOString() };
  },
};

async function callTool<Name extends keyof typeof tools>(
  name: Name,
  args: Parameters<(typeof tools)[Name]>[0],
): Promise<{ tool: Name; arguments: typeof args; result: unknown }> {
  const result = await (tools[name] as (a: typeof args) => Promise<unknown>)(args);
  return { tool: name, arguments: args, result };
}

/** A tool call as a receipts folder keeps it: what was called, with what, its result and when. */
async function timedToolCall<Name extends keyof typeof tools>(
  name: Name,
  args: Parameters<(typeof tools)[Name]>[0],
): Promise<RecordedToolCall> {
  const startedAt = new Date().toISOString();
  const { result } = await callTool(name, args);
  return {
    kind: "demo/tool-call",
    tool: name,
    arguments: args,
    result,
    startedAt,
    endedAt: new Date().toISOString(),
  };
}

// ---------------------------------------------------------------------------------------------
// Printing

const shareLink = (txSignature: string) => `${webUrl}/api/actions/verify?tx=${txSignature}`;
const webPage = (id: string) => `${webUrl}/app/attestations/${id}`;

function printReceipt(title: string, receipt: AttestationReceipt): void {
  console.log(`\n${title}`);
  console.log(`  action hash   ${receipt.actionHash}${receipt.privacyMode ? "  (private)" : ""}`);
  console.log(`  transaction   ${receipt.txSignature}`);
  console.log(`  explorer      ${receipt.explorerUrl}`);
  console.log(`  share link    ${shareLink(receipt.txSignature)}`);
  console.log(`  web page      ${webPage(receipt.attestationAddress)}`);
  console.log(`  ledger time   ${new Date(receipt.timestamp * 1000).toISOString()} (slot ${receipt.slot})`);
}

function printBatch(title: string, batch: BatchAttestationResult, steps: readonly string[]): void {
  console.log(`\n${title}`);
  console.log(`  merkle root   ${batch.merkleRoot} (${batch.itemCount} actions)`);
  console.log(
    `  transaction   ${batch.txSignature} (+ ${batch.leafTransactions.length} leaf transaction(s))`,
  );
  console.log(`  explorer      ${batch.explorerUrl}`);
  console.log(`  share link    ${shareLink(batch.txSignature)}`);
  console.log(`  web page      ${webPage(batch.txSignature)}`);
  for (const item of batch.receipts) {
    console.log(`    #${item.index} ${steps[item.index]}`);
    console.log(`       ${webPage(`${item.batchAddress}:${item.index}`)}`);
  }
}

function printRecordedCalls(
  receiptsDir: string,
  recorded: readonly { call: RecordedToolCall; receipt: BatchItemReceipt }[],
): void {
  const batches = new Set(recorded.map(({ receipt }) => receipt.batchAddress));
  console.log(
    `\nrecorded with the attestor: ToolCall ×${recorded.length} in ${batches.size} batch${batches.size === 1 ? "" : "es"}`,
  );
  console.log(`  receipts      ${receiptsDir} (one <action hash>.json file per call)`);
  console.log(`  verify link   ${webUrl}/app/receipts (open that folder there, or drop it on the page)`);
  const ledger = `--rpc-url ${rpcUrl}${programId ? ` --program-id ${programId}` : ""}`;
  console.log(`  or run        npm run abas -- receipts verify ${receiptsDir} ${ledger}`);
  for (const { receipt } of new Map(recorded.map((entry) => [entry.receipt.batchAddress, entry])).values()) {
    console.log(`  share link    ${shareLink(receipt.txSignature)}`);
    console.log(`  web page      ${webPage(receipt.txSignature)}`);
  }
  for (const { call, receipt } of recorded) {
    console.log(`    #${receipt.index} ${call.tool} ${JSON.stringify(call.arguments)}`);
    console.log(
      `       action hash ${receipt.actionHash}, batch item ${receipt.index + 1}/${receipt.itemCount}`,
    );
    console.log(`       ${webPage(`${receipt.batchAddress}:${receipt.index}`)}`);
  }
}

// ---------------------------------------------------------------------------------------------

async function checkServiceIsRunning(): Promise<void> {
  const notRunning = (what: string, url: string, error: unknown) =>
    new DemoError(
      `the ABAS service is not running: no ${what} at ${url} (${error instanceof Error ? error.message : String(error)}).\n` +
        "Start it with npm start (in another terminal), then run npm run demo again. " +
        "RPC_URL and ABAS_WEB_URL point the demo at a service elsewhere.",
    );
  try {
    await createSolanaRpc(rpcUrl)
      .getSlot()
      .send({ abortSignal: AbortSignal.timeout(5000) });
  } catch (error) {
    throw notRunning("ledger RPC", rpcUrl, error);
  }
  try {
    const response = await fetch(`${webUrl}/api/v1/ping`, { signal: AbortSignal.timeout(5000) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
  } catch (error) {
    throw notRunning("web app", webUrl, error);
  }
}

/** Waits until the indexer has read a transaction, so its share link and web page describe it. */
async function waitUntilIndexed(txSignature: string, timeoutMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const response = await fetch(shareLink(txSignature));
    if (response.ok) {
      const action = (await response.json()) as { error?: unknown };
      if (action.error === undefined) return true;
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return false;
}

async function main(): Promise<void> {
  await checkServiceIsRunning();
  console.log(`ABAS demo agent: ledger ${rpcUrl}, web app ${webUrl}/app`);

  // Keys made for this run; a real agent loads its own with loadKeypair("~/.config/solana/agent.json").
  const agentKeypair = await generateKeyPairSigner();
  const operatorKeypair = await generateKeyPairSigner();

  // The operator pays fees and rent: fund it from the ledger's faucet.
  const rpc = createSolanaRpc(rpcUrl);
  await rpc.requestAirdrop(operatorKeypair.address, lamports(1_000_000_000n)).send();
  const fundedBy = Date.now() + 30_000;
  while ((await rpc.getBalance(operatorKeypair.address).send()).value === 0n) {
    if (Date.now() > fundedBy)
      throw new DemoError(`the airdrop to ${operatorKeypair.address} did not arrive`);
    await new Promise((r) => setTimeout(r, 200));
  }
  console.log(`operator ${operatorKeypair.address} funded with 1 SOL (requestAirdrop)`);

  const client = new AttestationClient({ rpcUrl, agentKeypair, ...(programId ? { programId } : {}) });
  await client.registerAgent({ operatorKeypair, allowedActionTypes: ["ToolCall", "Decision"] });
  console.log(`agent ${client.agentAddress} registered (allowed: ToolCall, Decision)`);
  console.log(`  agent page    ${webUrl}/app/agents/${client.agentAddress}`);

  const hashOf = (action: unknown) => AttestationClient.hashAction(AttestationClient.canonicalize(action));
  const singles: { title: string; receipt: AttestationReceipt }[] = [];

  // 1. Read and summarise the repository's docs.
  const docs = await summariseDocs();
  const readAction = { tool: "docs.summarise", arguments: { dir: "docs" }, result: docs };
  console.log(
    `\n[1] read ${docs.length} docs: ${docs.map((d) => `${basename(d.file)} (${d.lines} lines)`).join(", ")}`,
  );
  const readReceipt = await client.attest({
    operatorKeypair,
    actionHash: await hashOf(readAction),
    actionType: "ToolCall",
  });
  printReceipt("attested: ToolCall docs.summarise", readReceipt);
  singles.push({ title: "docs.summarise", receipt: readReceipt });

  // 2. Checksum the program binary.
  const checksum = await checksumProgram();
  const checksumAction = { tool: "sha256.file", arguments: { path: checksum.file }, result: checksum };
  console.log(
    `\n[2] sha256 ${checksum.file} (${checksum.bytes} bytes) = ${checksum.sha256}: ` +
      (checksum.matches ? "matches the recorded checksum" : `differs from the recorded ${checksum.recorded}`),
  );
  const checksumReceipt = await client.attest({
    operatorKeypair,
    actionHash: await hashOf(checksumAction),
    actionType: "ToolCall",
  });
  printReceipt("attested: ToolCall sha256.file", checksumReceipt);
  singles.push({ title: "sha256.file", receipt: checksumReceipt });

  // 3. Decide from what was found, privately: only a salted commitment goes to the ledger.
  const largest = [...docs].sort((a, b) => b.words - a.words)[0];
  const decision = {
    decision: checksum.matches ? "trust-program-binary" : "rebuild-program-binary",
    reason: checksum.matches
      ? `the committed binary's SHA-256 equals ${basename(checksum.file)}.sha256`
      : "the committed binary's SHA-256 differs from the recorded one",
    readFirst: largest?.file ?? null,
    inputs: [readReceipt.actionHash, checksumReceipt.actionHash],
  };
  console.log(`\n[3] decision: ${decision.decision} (${decision.reason}); read ${decision.readFirst} first`);
  const decisionReceipt = await client.attest({
    operatorKeypair,
    actionHash: await hashOf(decision),
    actionType: "Decision",
    privacyMode: true,
  });
  printReceipt("attested privately: Decision", decisionReceipt);
  console.log(
    `  salt          ${decisionReceipt.salt} stays with the receipt: the ledger holds only the commitment ` +
      `${decisionReceipt.storedHash}, which nobody can link to the decision without it`,
  );
  singles.push({ title: "decision (private)", receipt: decisionReceipt });

  // 4. Call local tools several times and attest all the calls in one batch (one Merkle root).
  const packages = ["sdk", "indexer", "server", "web"];
  const calls = [
    ...(await Promise.all(packages.map((name) => callTool("repo.package_stats", { package: name })))),
    await callTool("fs.stat", { path: "program/dist/abas_attestation.so" }),
  ];
  console.log(`\n[4] ${calls.length} tool calls:`);
  for (const call of calls)
    console.log(`  ${call.tool} ${JSON.stringify(call.arguments)} -> ${JSON.stringify(call.result)}`);
  const batch = await client.batchAttest({
    operatorKeypair,
    attestations: await Promise.all(
      calls.map(async (call) => ({ actionHash: await hashOf(call), actionType: "ToolCall" as const })),
    ),
    onProgress: ({ stage, leavesPublished, itemCount }) =>
      console.log(`  ${stage}: ${leavesPublished}/${itemCount} leaves published`),
  });
  printBatch(
    "attested as a batch: ToolCall ×" + calls.length,
    batch,
    calls.map((call) => `${call.tool} ${JSON.stringify(call.arguments)}`),
  );

  // 5. Record tool calls with the Attestor: `record` returns at once (the call is on disk first),
  //    calls are batched by size or delay, and each call's receipt arrives once its batch is on the
  //    ledger. The receipts go to a receipts folder, the format abas-mcp-proxy writes.
  const demoDir = process.env.DEMO_DIR || mkdtempSync(join(tmpdir(), "abas-demo-"));
  const receiptsDir = join(demoDir, "receipts");
  const attestor = await Attestor.open({
    client: { rpcUrl, agentKeypair, ...(programId ? { programId } : {}) },
    operatorKeypair,
    queueDir: join(demoDir, "queue"),
  });
  const pending: { call: RecordedToolCall; receipt: Promise<BatchItemReceipt> }[] = [];
  console.log("\n[5] tool calls recorded with the attestor as they happen:");
  const agentSteps = [
    () => timedToolCall("fs.stat", { path: "README.md" }),
    () => timedToolCall("fs.stat", { path: "package.json" }),
    () => timedToolCall("repo.package_stats", { package: "mcp-proxy" }),
    () => timedToolCall("repo.package_stats", { package: "cli" }),
  ];
  for (const step of agentSteps) {
    const call = await step();
    const { actionHash, receipt } = attestor.record({ actionType: "ToolCall", payload: call });
    console.log(`  ${call.tool} ${JSON.stringify(call.arguments)} -> recorded ${actionHash.slice(0, 16)}…`);
    pending.push({ call, receipt });
  }
  await attestor.close(); // sends what is queued and waits for every receipt
  const recorded: { call: RecordedToolCall; receipt: BatchItemReceipt }[] = [];
  for (const { call, receipt } of pending) {
    const content = { call, receipt: await receipt };
    await writeReceiptFile(receiptsDir, content);
    recorded.push(content);
  }
  printRecordedCalls(receiptsDir, recorded);

  // 6. Verify every receipt against the ledger, as anyone holding it could (no key needed).
  console.log("\nverifying the receipts against the ledger:");
  let failures = 0;
  const all: { label: string; receipt: Receipt }[] = [
    ...singles.map(({ title, receipt }) => ({ label: title, receipt })),
    ...batch.receipts.map((receipt) => ({ label: `batch item #${receipt.index}`, receipt })),
    ...recorded.map(({ call, receipt }) => ({ label: `recorded ${call.tool} #${receipt.index}`, receipt })),
  ];
  for (const { label, receipt } of all) {
    const { valid, checks } = await verifyReceipt(receipt, { rpcUrl, programId });
    if (!valid) failures += 1;
    const failed = Object.entries(checks)
      .filter(([, check]) => check && !check.ok)
      .map(([name, check]) => `${name}: ${check?.reason ?? "failed"}`);
    console.log(
      `  ${valid ? "valid  " : "INVALID"} ${label}${failed.length ? ` (${failed.join("; ")})` : ""}`,
    );
  }

  // 7. The share links and web pages read the index: wait for the indexer to catch up.
  const signatures = [
    ...singles.map(({ receipt }) => receipt.txSignature),
    batch.txSignature,
    ...new Set(recorded.map(({ receipt }) => receipt.txSignature)),
  ];
  const indexed = await Promise.all(signatures.map((signature) => waitUntilIndexed(signature)));
  console.log(
    indexed.every(Boolean)
      ? "\nall receipts are indexed: the share links and web pages above describe them."
      : "\nsome receipts are not indexed yet: their share links and pages will describe them once the indexer catches up.",
  );
  console.log(`recent attestations: ${webUrl}/app`);
  console.log(`your receipts:       ${webUrl}/app/receipts (open ${receiptsDir})`);

  if (failures > 0) throw new DemoError(`${failures} receipt(s) did not verify`);
}

main().catch((error: unknown) => {
  console.error(`\ndemo: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
