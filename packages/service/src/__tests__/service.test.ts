/**
 * The README's run command, as a newcomer meets it: `abas-service` started as its own process on
 * the embedded defaults (local ledger, SQLite), an API key from the keys CLI, an attestation from
 * the SDK visible through the REST API, then Ctrl-C and a restart on the same data.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { ApiClient, AttestationClient } from "@abas/sdk";
import { generateKeyPairSigner, lamports } from "@solana/kit";
import { createSolanaRpc } from "@solana/kit";

const here = fileURLToPath(new URL(".", import.meta.url));
const serviceBin = resolve(here, "../bin.ts");
const repositoryRoot = resolve(here, "../../../..");
const tsx = resolve(repositoryRoot, "node_modules/.bin/tsx");

const dataDir = mkdtempSync(join(tmpdir(), "abas-service-"));
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** Free ports everywhere, so the test never collides with a running service. */
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATA_DIR: dataDir,
  PORT: "0",
  LEDGER_RPC_PORT: "0",
  LEDGER_WS_PORT: "0",
};
delete env.DATABASE_URL;
delete env.RPC_URL;

interface Started {
  readonly child: ChildProcess;
  readonly rpcUrl: string;
  readonly apiUrl: string;
  readonly output: () => string;
}

async function startService(): Promise<Started> {
  const child = spawn(tsx, [serviceBin], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 60_000;
  while (!/REST API\s+(\S+)/.test(output)) {
    if (child.exitCode !== null) throw new Error(`abas-service exited early:\n${output}`);
    if (Date.now() > deadline) throw new Error(`abas-service did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    rpcUrl: /ledger RPC\s+(\S+)/.exec(output)![1]!,
    apiUrl: /REST API\s+(\S+)/.exec(output)![1]!,
    output: () => output,
  };
}

async function interrupt(service: Started): Promise<number | null> {
  const exited = new Promise<number | null>((r) => service.child.once("exit", (code) => r(code)));
  service.child.kill("SIGINT");
  return exited;
}

test("one process serves the ledger, the indexer and the API, and resumes with its data", async () => {
  // Given the service started (on its own data folder and ports), and an API key from the keys
  // command it prints, run as printed in another terminal (no setting of its own) of the repository
  const first = await startService();
  const keysCommand = /^\s+(\S.*npm run keys -- create --name my-key)$/m.exec(first.output())?.[1];
  assert.equal(keysCommand, `DATA_DIR=${dataDir} npm run keys -- create --name my-key`, first.output());
  const otherTerminal: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ["DATA_DIR", "DATABASE_URL", "PORT", "RPC_URL"]) delete otherTerminal[name];
  otherTerminal.npm_config_loglevel = "silent"; // (npm's own lines around the command's JSON)
  const created = spawnSync("sh", ["-c", `${keysCommand} --json`], {
    cwd: repositoryRoot,
    env: otherTerminal,
    encoding: "utf8",
  });
  assert.equal(created.status, 0, created.stderr);
  // and the demo told where the ledger and the web app are
  const webUrl = first.apiUrl.replace(/\/api\/v1$/, "");
  assert.match(
    first.output(),
    new RegExp(`attest from code: +RPC_URL=${first.rpcUrl} ABAS_WEB_URL=${webUrl} npm run demo,`),
  );
  const apiKey = (JSON.parse(created.stdout) as { key: string }).key;
  const api = new ApiClient({ apiUrl: first.apiUrl, apiKey });

  // When an agent attests an action through the SDK against the printed ledger URL
  const operator = await generateKeyPairSigner();
  await createSolanaRpc(first.rpcUrl).requestAirdrop(operator.address, lamports(2_000_000_000n)).send();
  await waitFor(
    async () => (await createSolanaRpc(first.rpcUrl).getBalance(operator.address).send()).value > 0n,
  );
  const client = new AttestationClient({ rpcUrl: first.rpcUrl, agentKeypair: await generateKeyPairSigner() });
  await client.registerAgent({ operatorKeypair: operator });
  const actionHash = await AttestationClient.hashAction('{"tool":"search","query":"flights"}');
  const receipt = await client.attest({ operatorKeypair: operator, actionHash, actionType: "ToolCall" });

  // Then the REST API lists it once the indexer has it, and health is 200
  await waitFor(async () => (await api.listAttestations({ limit: 5 })).data.length === 1);
  const [listed] = (await api.listAttestations({ limit: 5 })).data;
  assert.equal(listed?.txSignature, receipt.txSignature);
  assert.equal((await fetch(`${first.apiUrl}/health`)).status, 200);

  // And Ctrl-C stops it cleanly
  assert.equal(await interrupt(first), 0, first.output());
  assert.match(first.output(), /stopped/);

  // When it starts again on the same data directory
  const second = await startService();
  try {
    // Then the attestation and the key are still there
    const again = new ApiClient({ apiUrl: second.apiUrl, apiKey });
    const page = await again.listAttestations({ limit: 5 });
    assert.deepEqual(
      page.data.map((a) => a.txSignature),
      [receipt.txSignature],
    );
  } finally {
    assert.equal(await interrupt(second), 0, second.output());
  }
});

test("npm start stops with the service when its npm process is sent SIGTERM, as a supervisor sends it", async () => {
  // Given `npm start` from the repository root, in a process group of its own (so that whatever
  // it leaves behind can be cleaned up after the test, whatever the outcome)
  const npm = spawn("npm", ["start"], {
    cwd: resolve(here, "../../../.."),
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  npm.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  npm.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  try {
    const deadline = Date.now() + 60_000;
    while (!/REST API\s+(\S+)/.test(output)) {
      if (npm.exitCode !== null || Date.now() > deadline)
        throw new Error(`npm start did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const apiUrl = /REST API\s+(\S+)/.exec(output)![1]!;

    // When only the npm process is sent SIGTERM
    const exited = new Promise((r) => npm.once("exit", r));
    npm.kill("SIGTERM");
    await exited;

    // Then the service stops as on Ctrl-C, and nothing answers on its port any more
    await waitFor(async () => /stopped/.test(output), 15_000);
    await assert.rejects(fetch(`${apiUrl}/ping`));
  } finally {
    try {
      process.kill(-npm.pid!, "SIGKILL");
    } catch {
      // The group is gone already.
    }
  }
});

test("abas-service takes no arguments: --help prints its settings, anything else is refused with exit code 2", () => {
  const help = spawnSync(tsx, [serviceBin, "--help"], { env, encoding: "utf8" });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^Usage: npm start \(abas-service\)/);
  assert.match(help.stdout, /^LEDGER_RPC_PORT=8899$/m);
  const unknown = spawnSync(tsx, [serviceBin, "--port", "9000"], { env, encoding: "utf8" });
  assert.equal(unknown.status, 2);
  assert.equal(
    unknown.stderr,
    "abas-service: unknown argument --port; settings are environment variables (see npm start -- --help)\n",
  );
});

test("a port another process holds: abas-service names it and the setting that moves it, exit code 1", async () => {
  const settings = ["LEDGER_RPC_PORT", "LEDGER_WS_PORT", "PORT"] as const;
  for (const setting of settings) {
    // Given another process listening where the service would
    const blocker = createServer();
    await new Promise<void>((listening) => blocker.listen(0, "127.0.0.1", listening));
    const port = (blocker.address() as AddressInfo).port;
    const ownDataDir = mkdtempSync(join(tmpdir(), "abas-service-port-"));
    try {
      // When the service starts on that port
      const started = spawnSync(tsx, [serviceBin], {
        env: { ...env, DATA_DIR: ownDataDir, [setting]: String(port) },
        encoding: "utf8",
        timeout: 60_000,
      });
      // Then it stops at once, naming the address and the setting
      assert.equal(started.status, 1, `${setting}: ${started.stderr}`);
      assert.equal(
        started.stderr,
        `abas-service: 127.0.0.1:${port} is in use by another process (another npm start or abas-ledger?): stop it, or choose another port with ${setting}=<port>\n`,
      );
    } finally {
      blocker.close();
      rmSync(ownDataDir, { recursive: true, force: true });
    }
  }
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 200));
  }
}
