/**
 * A running ABAS service (local ledger, indexer, REST API on free ports, in a temporary data
 * directory), an API key from the keys CLI, and an agent that attested a plain action, a
 * privacy-mode action and a batch of three through the SDK.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import {
  ApiClient,
  AttestationClient,
  type AttestationReceipt,
  type BatchAttestationResult,
} from "@abas/sdk";
import { loadServiceConfig, startService, type RunningService } from "@abas/service";
import { createSolanaRpc, generateKeyPairSigner, lamports, type Address } from "@solana/kit";

const SERVER_BIN = fileURLToPath(new URL("../../../../server/src/bin.ts", import.meta.url));
const TSX_LOADER = import.meta.resolve("tsx");

export interface Fixtures {
  readonly agent: Address;
  readonly operator: Address;
  readonly plainPayload: { tool: string; arguments: Record<string, unknown> };
  readonly plain: AttestationReceipt;
  readonly privatePayload: string;
  readonly private: AttestationReceipt;
  readonly batchPayloads: string[];
  readonly batch: BatchAttestationResult;
}

export interface LocalStack {
  readonly apiUrl: string;
  readonly rpcUrl: string;
  readonly apiKey: string;
  readonly api: ApiClient;
  readonly fixtures: Fixtures;
  /** Stops the service (the API and the ledger go away); safe to call twice. */
  stop(): Promise<void>;
}

function createApiKey(dataDir: string): string {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  const created = spawnSync(
    process.execPath,
    ["--import", TSX_LOADER, SERVER_BIN, "keys", "create", "--name", "mcp-e2e", "--json"],
    { env, encoding: "utf8" },
  );
  if (created.status !== 0) throw new Error(`keys create failed: ${created.stderr}`);
  return (JSON.parse(created.stdout) as { key: string }).key;
}

async function waitFor(what: string, condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function attestFixtures(rpcUrl: string): Promise<Fixtures> {
  const rpc = createSolanaRpc(rpcUrl);
  const operatorKeypair = await generateKeyPairSigner();
  await rpc.requestAirdrop(operatorKeypair.address, lamports(2_000_000_000n)).send();
  await waitFor("the airdrop", async () => (await rpc.getBalance(operatorKeypair.address).send()).value > 0n);

  const agentKeypair = await generateKeyPairSigner();
  const client = new AttestationClient({ rpcUrl, agentKeypair });
  await client.registerAgent({ operatorKeypair });

  const plainPayload = { tool: "flights.search", arguments: { to: "SFO", from: "LIS", passengers: 2 } };
  const plain = await client.attest({
    operatorKeypair,
    actionHash: await AttestationClient.hashAction(AttestationClient.canonicalize(plainPayload)),
    actionType: "ToolCall",
  });
  const privatePayload = '{"decision":"approve refund","amount":120}';
  const privateReceipt = await client.attest({
    operatorKeypair,
    actionHash: await AttestationClient.hashAction(privatePayload),
    actionType: "Decision",
    privacyMode: true,
  });
  const batchPayloads = ["model call 1", "model call 2", "model call 3"];
  const batch = await client.batchAttest({
    operatorKeypair,
    attestations: await Promise.all(
      batchPayloads.map(async (payload) => ({
        actionHash: await AttestationClient.hashAction(payload),
        actionType: "ModelInvocation" as const,
      })),
    ),
  });
  return {
    agent: agentKeypair.address,
    operator: operatorKeypair.address,
    plainPayload,
    plain,
    privatePayload,
    private: privateReceipt,
    batchPayloads,
    batch,
  };
}

export async function startLocalStack(): Promise<LocalStack> {
  const dataDir = mkdtempSync(join(tmpdir(), "abas-mcp-stack-"));
  let service: RunningService | undefined;
  try {
    service = await startService(
      loadServiceConfig({
        DATA_DIR: dataDir,
        PORT: "0",
        LEDGER_RPC_PORT: "0",
        LEDGER_WS_PORT: "0",
        LOG_LEVEL: "warn",
      }),
    );
    const apiKey = createApiKey(dataDir);
    const api = new ApiClient({ apiUrl: service.apiUrl, apiKey });
    const fixtures = await attestFixtures(service.rpcUrl);
    // Two singles and three batch items, once the indexer has read them from the ledger.
    await waitFor(
      "the indexer",
      async () => (await api.listAttestations({ agent: fixtures.agent })).data.length === 5,
    );
    const running = service;
    return {
      apiUrl: running.apiUrl,
      rpcUrl: running.rpcUrl,
      apiKey,
      api,
      fixtures,
      stop: async () => {
        await running.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}
