/**
 * Test support: a ledger in its own process on a fresh temporary data directory, raw JSON-RPC
 * calls (to assert exact error codes), and funded kit signers.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import {
  airdropFactory,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  generateKeyPairSigner,
  lamports,
  type KeyPairSigner,
} from "@solana/kit";

import { spawnLedgerProcess, type LedgerProcess, type SpawnLedgerOptions } from "../../index.js";

export const LAMPORTS_PER_SOL = 1_000_000_000n;

export function temporaryDataDir(): { path: string; remove: () => void } {
  const path = mkdtempSync(join(tmpdir(), "abas-ledger-test-"));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

export interface LedgerUnderTest extends LedgerProcess {
  /** Stops the process and deletes its data directory. */
  dispose(): Promise<void>;
}

export async function startLedgerProcess(
  options: Partial<SpawnLedgerOptions> = {},
): Promise<LedgerUnderTest> {
  const dataDir = options.dataDir === undefined ? temporaryDataDir() : undefined;
  const ledger = await spawnLedgerProcess({ ...options, dataDir: options.dataDir ?? dataDir!.path });
  return {
    ...ledger,
    dispose: async () => {
      await ledger.stop();
      dataDir?.remove();
    },
  };
}

export interface RpcReply {
  readonly result?: unknown;
  readonly error?: { code: number; message: string; data?: unknown };
}

/** Posts a raw body; for requests that clients would refuse to build. */
export async function postRaw(rpcUrl: string, body: string): Promise<unknown> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  return (await response.json()) as unknown;
}

export async function rpcCall(rpcUrl: string, method: string, params?: unknown): Promise<RpcReply> {
  return (await postRaw(rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }))) as RpcReply;
}

export function kitClients(ledger: Pick<LedgerProcess, "rpcUrl" | "wsUrl">) {
  const rpc = createSolanaRpc(ledger.rpcUrl);
  const rpcSubscriptions = createSolanaRpcSubscriptions(ledger.wsUrl);
  return { rpc, rpcSubscriptions, airdrop: airdropFactory({ rpc, rpcSubscriptions }) };
}

export async function fundedSigner(
  clients: ReturnType<typeof kitClients>,
  sol = 10n,
): Promise<KeyPairSigner> {
  const signer = await generateKeyPairSigner();
  await clients.airdrop({
    recipientAddress: signer.address,
    lamports: lamports(sol * LAMPORTS_PER_SOL),
    commitment: "confirmed",
  });
  return signer;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
