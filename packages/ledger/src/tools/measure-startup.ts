/**
 * Measures how long the ledger takes to start from its data directory with N transactions in
 * its history: replaying all N from the event log (no snapshot after genesis), and loading a
 * snapshot that already holds them. Usage: `npm run measure:startup -w @abas/ledger -- 1000 10000`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import type { Address } from "@solana/kit";

import { resolveLedgerConfig } from "../config.js";
import { toBase58 } from "../encoding.js";
import { openLedger } from "../ledger/open-ledger.js";
import { silentLogger } from "../logger.js";

async function measure(transactions: number): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "abas-ledger-measure-"));
  try {
    const config = resolveLedgerConfig({ dataDir, snapshotEvery: 1_000_000 });
    const first = await openLedger(config, silentLogger);
    const started = performance.now();
    for (let i = 0; i < transactions; i += 1) {
      const recipient = toBase58(crypto.getRandomValues(new Uint8Array(32))) as Address;
      const result = await first.ledger.requestAirdrop(recipient, 1_000_000_000n);
      if (!("signature" in result)) throw new Error(result.error);
    }
    const executeMs = performance.now() - started;
    // Dropped without its final snapshot, as after kill -9: the next start replays everything.
    first.ledger.close = () => {};

    const replaying = await openLedger(config, silentLogger);
    replaying.close();
    const fromSnapshot = await openLedger(config, silentLogger);
    fromSnapshot.close();
    const ms = (value: number): string => `${Math.round(value)} ms`;
    console.log(
      [
        `${transactions} transactions (each executed once live in ${(executeMs / transactions).toFixed(2)} ms, with preflight and fsync):`,
        `  start replaying all of them: ${ms(replaying.startup.totalMs)} (replay ${ms(replaying.startup.replayMs)})`,
        `  start from a snapshot that holds them: ${ms(fromSnapshot.startup.totalMs)}`,
      ].join("\n"),
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const counts = process.argv.slice(2).map(Number);
for (const count of counts.length > 0 ? counts : [1000, 10_000]) await measure(count);
