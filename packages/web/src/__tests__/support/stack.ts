/**
 * The real stack the web tests run against: `startService` from @abas/service (local ledger with
 * the program, indexer, REST API and the web plugin, on free ports and a temporary data
 * directory), with data made through the SDK: one agent with a plain and a privacy-mode single
 * attestation and a batch of three (one item in privacy mode).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { loadServiceConfig, startService, type RunningService } from "@abas/service";
import {
  AttestationClient,
  canonicalize,
  hashAction,
  type AttestationReceipt,
  type BatchAttestationResult,
} from "@abas/sdk";

import { generateTestKey, ledgerRpc, type TestKey } from "./keys.js";

export interface SeededStack {
  readonly service: RunningService;
  /** `http://127.0.0.1:<port>`: the web app, the share link and the REST API. */
  readonly origin: string;
  readonly apiUrl: string;
  readonly rpcUrl: string;
  readonly dataDir: string;
  readonly client: AttestationClient;
  readonly operator: TestKey;
  /** The payload of the plain single attestation, as the agent hashed it (canonical JSON). */
  readonly payload: Record<string, unknown>;
  readonly plain: AttestationReceipt;
  readonly privatePayload: Record<string, unknown>;
  readonly privateReceipt: AttestationReceipt;
  readonly batch: BatchAttestationResult;
  readonly batchPayloads: readonly Record<string, unknown>[];
  stop(): Promise<void>;
}

export async function waitFor(
  condition: () => Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function hashOf(payload: unknown): Promise<string> {
  return hashAction(canonicalize(payload));
}

export async function startSeededStack(): Promise<SeededStack> {
  const dataDir = mkdtempSync(join(tmpdir(), "abas-web-test-"));
  const env: NodeJS.ProcessEnv = {
    DATA_DIR: dataDir,
    PORT: "0",
    LEDGER_RPC_PORT: "0",
    LEDGER_WS_PORT: "0",
    LOG_LEVEL: "silent",
  };
  const service = await startService(loadServiceConfig(env));
  try {
    const operator = generateTestKey();
    await ledgerRpc(service.rpcUrl, "requestAirdrop", [operator.address, 2_000_000_000]);
    await waitFor(
      async () =>
        (await ledgerRpc<{ value: number }>(service.rpcUrl, "getBalance", [operator.address])).value > 0,
      "the airdrop",
    );
    const operatorKeypair = operator.secretKey;

    const client = new AttestationClient({
      rpcUrl: service.rpcUrl,
      agentKeypair: generateTestKey().secretKey,
    });
    await client.registerAgent({ operatorKeypair });

    const payload = {
      tool: "flights.search",
      arguments: { from: "LIS", to: "SFO" },
      at: "2026-11-21T09:30:00Z",
    };
    const plain = await client.attest({
      operatorKeypair,
      actionHash: await hashOf(payload),
      actionType: "ToolCall",
    });
    const privatePayload = { decision: "approve refund", order: "A-1042", amount: "120.00 EUR" };
    const privateReceipt = await client.attest({
      operatorKeypair,
      actionHash: await hashOf(privatePayload),
      actionType: "Decision",
      privacyMode: true,
    });
    const batchPayloads = [
      { step: "plan", route: "LIS-SFO" },
      { step: "book", fare: "Y", seat: "14C" },
      { step: "pay", amount: "612.40 EUR" },
    ];
    const batch = await client.batchAttest({
      operatorKeypair,
      attestations: [
        { actionHash: await hashOf(batchPayloads[0]), actionType: "Decision" },
        { actionHash: await hashOf(batchPayloads[1]), actionType: "ToolCall" },
        { actionHash: await hashOf(batchPayloads[2]), actionType: "Transaction", privacyMode: true },
      ],
    });

    const apiUrl = service.apiUrl;
    const origin = apiUrl.replace(/\/api\/v1$/, "");
    // Everything is in once the indexer has the batch items (they come last).
    await waitFor(async () => {
      const response = await fetch(`${origin}/app/live/recent`);
      const rows = await response.text();
      return (rows.match(/data-id=/g) ?? []).length === 5;
    }, "the indexer to record the five attestations");

    return {
      service,
      origin,
      apiUrl,
      rpcUrl: service.rpcUrl,
      dataDir,
      client,
      operator,
      payload,
      plain,
      privatePayload,
      privateReceipt,
      batch,
      batchPayloads,
      stop: async () => {
        await service.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}
