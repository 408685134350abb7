/**
 * The time the MCP proxy's calls journal takes on the proxy's thread, which forwards the messages:
 * `CallJournal` driven as the proxy drives it, with large calls. Each call is appended (before its
 * response is forwarded); after every 100 calls the receipts of the 100 before them are saved
 * (`receiptStarted`, then `receiptEnded`), so between 100 and 200 calls are always waiting, as
 * while a batch is on its way to the ledger. Printed, not recorded:
 *
 *   npm run bench:calls-journal
 *   BENCH_CALL_BYTES=262144 BENCH_CALLS=1000 BENCH_DURABILITY=fsync npm run bench:calls-journal
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";

import { CallJournal } from "../packages/mcp-proxy/src/call-journal.js";
import type { ToolCallAction } from "../packages/mcp-proxy/src/tool-calls.js";

const CALL_BYTES = Number(process.env.BENCH_CALL_BYTES ?? 262_144);
const CALLS = Number(process.env.BENCH_CALLS ?? 1000);
const DURABILITY = process.env.BENCH_DURABILITY === "fsync" ? "fsync" : "write";
const BATCH = 100;

type Summary = { calls: number; p50Ms: number; p99Ms: number; maxMs: number; totalMs: number };

function summary(times: number[]): Summary {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]!;
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  return {
    calls: sorted.length,
    p50Ms: round(at(0.5)),
    p99Ms: round(at(0.99)),
    maxMs: round(sorted.at(-1)!),
    totalMs: Math.round(sorted.reduce((sum, ms) => sum + ms, 0)),
  };
}

const timed = (times: number[], work: () => void): void => {
  const started = performance.now();
  work();
  times.push(performance.now() - started);
};

const queueDir = mkdtempSync(join(tmpdir(), "abas-bench-calls-journal-"));
try {
  const journal = new CallJournal(queueDir, DURABILITY, { queued: new Set() });
  const text = "x".repeat(CALL_BYTES);
  const hashOf = (index: number) => index.toString(16).padStart(64, "0");
  const appended: number[] = [];
  const receipted: number[] = [];
  const saveReceipts = (from: number, to: number) => {
    for (let index = from; index < to; index++) {
      journal.receiptStarted(hashOf(index));
      timed(receipted, () => journal.receiptEnded(hashOf(index), true));
    }
  };
  for (let index = 0; index < CALLS; index++) {
    const call: ToolCallAction = {
      kind: "mcp/tools/call",
      tool: "echo",
      arguments: { message: text },
      result: { content: [{ type: "text", text: `Echo: ${text}` }] },
      startedAt: new Date().toISOString(),
      endedAt: new Date().toISOString(),
      callId: index,
    };
    timed(appended, () => journal.append(hashOf(index), call));
    if ((index + 1) % BATCH === 0 && index + 1 > BATCH)
      saveReceipts(index + 1 - 2 * BATCH, index + 1 - BATCH);
  }
  saveReceipts(Math.max(0, CALLS - BATCH - (CALLS % BATCH)), CALLS);
  journal.close();
  console.log(
    `calls journal, ${DURABILITY} durability: ${CALLS} calls of ${CALL_BYTES} bytes of arguments and as much of result, receipts saved ${BATCH} at a time with ${BATCH} to ${2 * BATCH} calls waiting`,
  );
  console.table({ append: summary(appended), receiptEnded: summary(receipted) });
} finally {
  rmSync(queueDir, { recursive: true, force: true });
}
