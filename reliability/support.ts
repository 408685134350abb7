/**
 * Shared pieces of the reliability suite: a seeded random source (RELIABILITY_SEED reproduces a
 * run) and a ledger process that can be killed with SIGKILL and started again on the same data
 * directory and ports, shaped as the indexer tests' TestLedger so their helpers accept it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { spawnLedgerProcess, type LedgerProcess } from "@abas/ledger";
import { createSolanaRpc } from "@solana/kit";

import type { TestLedger } from "../packages/indexer/src/__tests__/support/test-ledger.js";

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The seed of this run: RELIABILITY_SEED when set, otherwise a fresh one (printed by each test). */
export function runSeed(): number {
  const fromEnv = process.env.RELIABILITY_SEED;
  if (fromEnv !== undefined && fromEnv !== "") {
    const seed = Number(fromEnv);
    if (!Number.isSafeInteger(seed)) throw new Error(`RELIABILITY_SEED must be an integer, got ${fromEnv}`);
    return seed >>> 0;
  }
  return Math.floor(Math.random() * 2 ** 32) >>> 0;
}

export type Random = Readonly<{
  /** [0, 1) */
  next: () => number;
  /** An integer in [min, max]. */
  int: (min: number, max: number) => number;
  pick: <T>(values: readonly T[]) => T;
  chance: (probability: number) => boolean;
  bytes: (length: number) => Uint8Array;
}>;

/** mulberry32: small, fast, and the same sequence for the same seed on every platform. */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: (values) => values[Math.floor(next() * values.length)]!,
    chance: (probability) => next() < probability,
    bytes: (length) => Uint8Array.from({ length }, () => int(0, 255)),
  };
}

export type KillableLedger = TestLedger & {
  /** SIGKILL: a crash at an arbitrary moment; the data stays. */
  kill9(): Promise<void>;
  /** Starts it on the same data directory and ports (after kill9 or stop). */
  start(): Promise<void>;
  pid(): number;
};

export async function startKillableLedger(slotMs = 100): Promise<KillableLedger> {
  const dataDir = mkdtempSync(join(tmpdir(), "abas-reliability-ledger-"));
  let current: LedgerProcess | undefined = await spawnLedgerProcess({ dataDir, slotMs });
  const rpcPort = Number(new URL(current.rpcUrl).port);
  const wsPort = Number(new URL(current.wsUrl).port);
  const take = (): LedgerProcess | undefined => {
    const running = current;
    current = undefined;
    return running;
  };
  const ledger: KillableLedger = {
    rpcUrl: current.rpcUrl,
    wsUrl: current.wsUrl,
    programId: current.programId,
    rpc: createSolanaRpc(current.rpcUrl),
    pid: () => current?.pid ?? -1,
    stop: async () => {
      await take()?.stop();
    },
    kill9: async () => {
      await take()?.kill9();
    },
    start: async () => {
      if (current !== undefined) return;
      current = await spawnLedgerProcess({ dataDir, rpcPort, wsPort, slotMs });
      if (current.programId !== ledger.programId) {
        throw new Error(`the restarted ledger has program ${current.programId}, not ${ledger.programId}`);
      }
    },
    restart: async () => {
      await ledger.stop();
      await ledger.start();
    },
    dispose: async () => {
      await ledger.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return ledger;
}
