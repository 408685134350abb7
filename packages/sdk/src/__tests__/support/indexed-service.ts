/**
 * The whole ABAS service (`@abas/service`: local ledger, indexer, REST API, in a temporary data
 * directory), an API key made with the keys command, and an agent that attested a plain action, a
 * privacy-mode action and a batch of three (and a second agent the same plain action), waited for
 * until the REST API indexes them.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { loadServiceConfig, startService } from "@abas/service";
import {
  address,
  createSolanaRpc,
  generateKeyPairSigner,
  type Address,
  type KeyPairSigner,
} from "@solana/kit";

import { ApiClient } from "../../api/api-client.js";
import { AttestationClient } from "../../client.js";
import type { AttestationReceipt, BatchAttestationResult } from "../../receipts.js";
import { airdrop, type TestLedger } from "./local-ledger.js";

const SERVER_BIN = fileURLToPath(new URL("../../../../server/src/bin.ts", import.meta.url));

export type IndexedService = Readonly<{
  rpcUrl: string;
  programId: Address;
  api: ApiClient;
  agent: Address;
  operator: KeyPairSigner;
  client: AttestationClient;
  plainPayload: Record<string, unknown>;
  plain: AttestationReceipt;
  /** The same plain action, attested by a second agent. */
  plainByOtherAgent: AttestationReceipt;
  privatePayload: string;
  private: AttestationReceipt;
  batchPayloads: readonly string[];
  batch: BatchAttestationResult;
  stop: () => Promise<void>;
}>;

function createApiKey(dataDir: string): string {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  const created = spawnSync(
    process.execPath,
    ["--import", import.meta.resolve("tsx"), SERVER_BIN, "keys", "create", "--name", "sdk-e2e", "--json"],
    { env, encoding: "utf8" },
  );
  if (created.status !== 0) throw new Error(`keys create failed: ${created.stderr}`);
  return (JSON.parse(created.stdout) as { key: string }).key;
}

export async function waitFor(what: string, condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startIndexedService(): Promise<IndexedService> {
  const dataDir = mkdtempSync(join(tmpdir(), "abas-sdk-service-"));
  const env = { DATA_DIR: dataDir, PORT: "0", LEDGER_RPC_PORT: "0", LEDGER_WS_PORT: "0", LOG_LEVEL: "warn" };
  const service = await startService(loadServiceConfig(env));
  const stop = async () => {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const api = new ApiClient({ apiUrl: service.apiUrl, apiKey: createApiKey(dataDir) });
    const programId = address(service.programId!);
    const ledger: TestLedger = {
      // The service runs the ledger in this process.
      pid: process.pid,
      rpcUrl: service.rpcUrl,
      programId,
      rpc: createSolanaRpc(service.rpcUrl),
      stop,
    };
    const operator = await generateKeyPairSigner();
    await airdrop(ledger, operator.address);
    const agentKeypair = await generateKeyPairSigner();
    const client = new AttestationClient({ rpcUrl: service.rpcUrl, agentKeypair, programId });
    await client.registerAgent({ operatorKeypair: operator });

    const plainPayload = { tool: "flights.search", arguments: { to: "SFO", from: "LIS" } };
    const plain = await client.attest({
      operatorKeypair: operator,
      actionHash: await AttestationClient.hashAction(AttestationClient.canonicalize(plainPayload)),
      actionType: "ToolCall",
    });
    const privatePayload = "approve refund 120";
    const privateReceipt = await client.attest({
      operatorKeypair: operator,
      actionHash: await AttestationClient.hashAction(privatePayload),
      actionType: "Decision",
      privacyMode: true,
    });
    const batchPayloads = ["model call 1", "model call 2", "model call 3"];
    const batch = await client.batchAttest({
      operatorKeypair: operator,
      attestations: await Promise.all(
        batchPayloads.map(async (payload) => ({
          actionHash: await AttestationClient.hashAction(payload),
          actionType: "ModelInvocation" as const,
        })),
      ),
    });
    const otherClient = new AttestationClient({
      rpcUrl: service.rpcUrl,
      agentKeypair: await generateKeyPairSigner(),
      programId,
    });
    await otherClient.registerAgent({ operatorKeypair: operator });
    const plainByOtherAgent = await otherClient.attest({
      operatorKeypair: operator,
      actionHash: plain.actionHash,
      actionType: "ToolCall",
    });
    const agent = agentKeypair.address;
    await waitFor("the indexer", async () => (await api.listAttestations({ agent })).data.length === 5);
    await waitFor(
      "the indexer",
      async () => (await api.listAttestations({ storedHash: plain.storedHash })).data.length === 2,
    );
    return {
      rpcUrl: service.rpcUrl,
      programId,
      api,
      agent,
      operator,
      client,
      plainPayload,
      plain,
      plainByOtherAgent,
      privatePayload,
      private: privateReceipt,
      batchPayloads,
      batch,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
