/**
 * Ledger data deleted behind the indexer: `npm start`'s stack indexes an attestation, then its
 * ledger directory is replaced by an older copy (a restore from backup; the attestation is gone
 * from the ledger). Health must turn degraded naming the divergence, and `abas reindex`, run while
 * the service keeps running, must repair the index: the lost receipt is no longer served.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";

import { ABAS_API__ATTESTATION_NOT_FOUND, ABAS_API__INDEX_DIVERGED } from "@abas/errors";
import { createApiKey, openDatabase } from "@abas/db";
import { AttestationClient, generateSecretKey, hashAction } from "@abas/sdk";
import { loadServiceConfig, startService, type RunningService } from "@abas/service";

const here = fileURLToPath(new URL(".", import.meta.url));
const bin = resolve(here, "../bin.ts");
const tsx = resolve(here, "../../../../node_modules/.bin/tsx");

const work = mkdtempSync(join(tmpdir(), "abas-divergence-"));
const dataDir = join(work, "data");
let service: RunningService | undefined;
after(async () => {
  await service?.stop();
  rmSync(work, { recursive: true, force: true });
});

const start = async (): Promise<RunningService> =>
  (service = await startService(
    loadServiceConfig({ DATA_DIR: dataDir, PORT: "0", LEDGER_RPC_PORT: "0", LEDGER_WS_PORT: "0" }),
  ));

interface Health {
  status: string;
  causes: { code: number; detail: string }[];
}

async function health(running: RunningService): Promise<Health> {
  return (await (await fetch(`${running.apiUrl}/health`)).json()) as Health;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(200);
  }
}

async function attestation(running: RunningService, apiKey: string, id: string): Promise<Response> {
  return await fetch(`${running.apiUrl}/attestations/${id}`, {
    headers: { authorization: `Bearer ${apiKey}` },
  });
}

async function attestOnce(running: RunningService, operator: Uint8Array, agent: Uint8Array, label: string) {
  const client = new AttestationClient({ rpcUrl: running.rpcUrl, agentKeypair: agent });
  return await client.attest({
    operatorKeypair: operator,
    actionHash: await hashAction(label),
    actionType: "ToolCall",
  });
}

test("health names a ledger that lost indexed data, and abas reindex repairs the index while the service runs", async () => {
  // Given the service with a registered agent and a first attestation, indexed
  let running = await start();
  const database = openDatabase({ url: join(dataDir, "abas.sqlite") });
  const { key: apiKey } = await createApiKey(database.db, { name: "test" });
  await database.close();
  const operator = generateSecretKey();
  const agent = generateSecretKey();
  const rpc = async (method: string, params: unknown[]) =>
    (
      (await (
        await fetch(running.rpcUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        })
      ).json()) as { result: unknown }
    ).result;
  const operatorAddress = new AttestationClient({ rpcUrl: running.rpcUrl, agentKeypair: operator })
    .agentAddress;
  await rpc("requestAirdrop", [operatorAddress, 5_000_000_000]);
  await waitFor("the airdrop", async () =>
    ((await rpc("getBalance", [operatorAddress])) as { value: number }).value > 0 ? true : undefined,
  );
  await new AttestationClient({ rpcUrl: running.rpcUrl, agentKeypair: agent }).registerAgent({
    operatorKeypair: operator,
  });
  const kept = await attestOnce(running, operator, agent, "kept");
  await waitFor("the first attestation indexed", async () =>
    (await attestation(running, apiKey, kept.attestationAddress)).status === 200 ? true : undefined,
  );

  // And a copy of the ledger taken while the service was stopped (a backup)
  await running.stop();
  cpSync(join(dataDir, "ledger"), join(work, "ledger-backup"), { recursive: true });

  // And a second attestation made and indexed after the backup
  running = await start();
  const lost = await attestOnce(running, operator, agent, "lost");
  await waitFor("the second attestation indexed", async () =>
    (await attestation(running, apiKey, lost.attestationAddress)).status === 200 ? true : undefined,
  );
  assert.equal((await health(running)).status, "ok");

  // When the ledger's data is replaced by the backup (the second attestation is gone from it)
  await running.stop();
  rmSync(join(dataDir, "ledger"), { recursive: true, force: true });
  cpSync(join(work, "ledger-backup"), join(dataDir, "ledger"), { recursive: true });
  running = await start();

  // Then health turns degraded and names the divergence, while the API still has the lost receipt
  const diverged = await waitFor("health to name the divergence", async () => {
    const report = await health(running);
    return report.causes.some((cause) => cause.code === ABAS_API__INDEX_DIVERGED) ? report : undefined;
  });
  assert.equal(diverged.status, "degraded");
  assert.match(
    diverged.causes.find((cause) => cause.code === ABAS_API__INDEX_DIVERGED)!.detail,
    new RegExp(`${lost.txSignature}.*is not on the ledger.*abas reindex`),
  );
  assert.equal((await attestation(running, apiKey, lost.attestationAddress)).status, 200);

  // When abas reindex runs against the running service's database and ledger
  const reindexed = await new Promise<{ code: number | null; stderr: string }>((done) => {
    const child = spawn(tsx, [bin, "reindex", "--json"], {
      cwd: work,
      env: { ...process.env, DATA_DIR: dataDir, RPC_URL: running.rpcUrl, DATABASE_URL: "" },
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => done({ code, stderr }));
  });
  assert.equal(reindexed.code, 0, reindexed.stderr);

  // Then health is ok again, the lost receipt is no longer served, the kept one still is
  await waitFor("health to be ok", async () => ((await health(running)).status === "ok" ? true : undefined));
  const gone = await attestation(running, apiKey, lost.attestationAddress);
  assert.equal(gone.status, 404);
  assert.equal(((await gone.json()) as { code: number }).code, ABAS_API__ATTESTATION_NOT_FOUND);
  assert.equal((await attestation(running, apiKey, kept.attestationAddress)).status, 200);
});
