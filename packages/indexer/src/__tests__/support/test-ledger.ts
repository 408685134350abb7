/**
 * The ledger for the indexer's tests: `@abas/ledger` in its own process, on a temporary data
 * directory, reached over JSON-RPC only. It can be stopped and started again on the same data
 * and ports (a ledger outage).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { spawnLedgerProcess, type LedgerProcess } from "@abas/ledger";
import { createSolanaRpc, type Address, type Rpc, type SolanaRpcApi } from "@solana/kit";

export type TestLedger = {
  readonly rpcUrl: string;
  readonly wsUrl: string;
  readonly programId: Address;
  readonly rpc: Rpc<SolanaRpcApi>;
  /** Stops the process (a clean shutdown); the data stays. */
  stop(): Promise<void>;
  /** Starts it again on the same data directory and ports. */
  restart(): Promise<void>;
  /** Stops it and deletes its data. */
  dispose(): Promise<void>;
};

/** The child is unref'd: keep this process alive while waiting for it to exit. */
async function keepingAlive<T>(work: () => Promise<T>): Promise<T> {
  const keepAlive = setInterval(() => undefined, 1000);
  try {
    return await work();
  } finally {
    clearInterval(keepAlive);
  }
}

/** `slotMs`: how long each slot lasts (default 100 ms). */
export async function startTestLedger({ slotMs = 100 }: { slotMs?: number } = {}): Promise<TestLedger> {
  const dataDir = mkdtempSync(join(tmpdir(), "abas-indexer-ledger-"));
  let process: LedgerProcess | undefined = await spawnLedgerProcess({ dataDir, slotMs });
  const rpcPort = Number(new URL(process.rpcUrl).port);
  const wsPort = Number(new URL(process.wsUrl).port);
  const ledger: TestLedger = {
    rpcUrl: process.rpcUrl,
    wsUrl: process.wsUrl,
    programId: process.programId,
    rpc: createSolanaRpc(process.rpcUrl),
    stop: async () => {
      const running = process;
      process = undefined;
      if (running !== undefined) await keepingAlive(() => running.stop());
    },
    restart: async () => {
      await ledger.stop();
      process = await spawnLedgerProcess({ dataDir, rpcPort, wsPort, slotMs });
    },
    dispose: async () => {
      await ledger.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return ledger;
}
