/**
 * Throughput of the SDK's `AttestationClient.hashAction` on realistic ~1 KiB JSON action payloads
 * (canonicalized tool calls, model invocations and decisions), against node:crypto SHA-256 of the
 * same strings to hex in the same process. Both sides hash every payload of the same set, one call
 * at a time, in alternating rounds; the best round of each counts.
 *
 *   npx tsx bench/hash-action.ts
 */
import { createHash, randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { AttestationClient } from "@abas/sdk";

const COMMAND = "npx tsx bench/hash-action.ts";
const PAYLOADS = 1000;
const ROUNDS = 5;
const ROUND_MS = 1000;

/** A tool call, model invocation or decision of about 1 KiB once canonicalized. */
function payload(index: number): string {
  const id = randomBytes(8).toString("hex");
  const common = {
    agent: "search-and-summarise",
    requestId: `req_${id}`,
    startedAt: new Date(1_763_000_000_000 + index * 1337).toISOString(),
    durationMs: 40 + (index % 900),
  };
  let action: Record<string, unknown>;
  switch (index % 3) {
    case 0:
      action = {
        ...common,
        type: "tool_call",
        tool: "http.get",
        input: {
          url: `https://api.example.com/v2/orders/${id}?expand=items,customer,shipping`,
          headers: { accept: "application/json", "user-agent": "abas-agent/1.0" },
        },
        output: {
          status: 200,
          bytes: 4096 + index,
          summary: `Order ${id} has ${index % 7} items awaiting shipment to the customer in Lyon; the carrier reports a two-day delay on the last leg and the customer was told by email.`,
        },
      };
      break;
    case 1:
      action = {
        ...common,
        type: "model_invocation",
        model: "gpt-4o-mini-2024-07-18",
        parameters: { temperature: 0.2, maxTokens: 512, topP: 1 },
        promptSha256: createHash("sha256").update(id).digest("hex"),
        messages: [
          { role: "system", content: "You summarise customer orders for the support team in two sentences." },
          { role: "user", content: `Summarise order ${id} and flag anything unusual about its shipping.` },
        ],
        usage: { promptTokens: 312 + (index % 50), completionTokens: 88, totalTokens: 400 + (index % 50) },
      };
      break;
    default:
      action = {
        ...common,
        type: "decision",
        decision: index % 2 === 0 ? "approve_refund" : "escalate",
        amount: { value: (index % 500) + 0.99, currency: "EUR" },
        reasons: [
          "the carrier confirmed the parcel was lost in transit",
          "the customer has no refund in the last 12 months",
          `the order total is under the automatic limit for tier ${index % 4}`,
        ],
        policy: { id: "refunds-v3", version: 7, rule: "lost-parcel-under-limit" },
        evidence: [`carrier:${id}`, `ticket:${index}`, `order:${id}`],
      };
  }
  let text = AttestationClient.canonicalize(action);
  // Pad with a note to land every payload near 1 KiB, as a real log line with context would be.
  if (text.length < 1024)
    text = AttestationClient.canonicalize({ ...action, note: "n".repeat(1024 - text.length - 10) });
  return text;
}

export interface HashActionResults {
  readonly command: string;
  readonly date: string;
  readonly payloads: number;
  readonly meanPayloadBytes: number;
  readonly rounds: number;
  readonly roundMs: number;
  readonly hashActionPerSecond: number;
  readonly nodeCryptoPerSecond: number;
  readonly hashActionMiBPerSecond: number;
  readonly nodeCryptoMiBPerSecond: number;
  /** hashAction calls per second divided by node:crypto SHA-256 hashes per second. */
  readonly ratio: number;
}

async function round(hash: (text: string) => unknown, payloads: readonly string[]): Promise<number> {
  let count = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < ROUND_MS) {
    for (const text of payloads) await hash(text);
    count += payloads.length;
    elapsed = performance.now() - started;
  }
  return count / (elapsed / 1000);
}

/** Measures both hashes on the same payloads; returns the best round of each and their ratio. */
export async function measureHashAction(): Promise<HashActionResults> {
  const date = new Date().toISOString();
  const payloads = Array.from({ length: PAYLOADS }, (_, i) => payload(i));
  const sdk = (text: string) => AttestationClient.hashAction(text);
  const raw = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
  // The two must agree, or the comparison means nothing.
  for (const text of payloads.slice(0, 10)) {
    if ((await sdk(text)) !== raw(text))
      throw new Error("hashAction differs from SHA-256 of the UTF-8 bytes");
  }
  await round(sdk, payloads);
  await round(raw, payloads);
  let best = { sdk: 0, raw: 0 };
  for (let i = 0; i < ROUNDS; i++) {
    best = {
      sdk: Math.max(best.sdk, await round(sdk, payloads)),
      raw: Math.max(best.raw, await round(raw, payloads)),
    };
  }
  const meanBytes = payloads.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / payloads.length;
  const mib = (perSecond: number) => Math.round(((perSecond * meanBytes) / 1024 / 1024) * 10) / 10;
  const results: HashActionResults = {
    command: COMMAND,
    date,
    payloads: PAYLOADS,
    meanPayloadBytes: Math.round(meanBytes),
    rounds: ROUNDS,
    roundMs: ROUND_MS,
    hashActionPerSecond: Math.round(best.sdk),
    nodeCryptoPerSecond: Math.round(best.raw),
    hashActionMiBPerSecond: mib(best.sdk),
    nodeCryptoMiBPerSecond: mib(best.raw),
    ratio: Math.round((best.sdk / best.raw) * 100) / 100,
  };
  console.log(
    `hashAction ${results.hashActionPerSecond}/s (${results.hashActionMiBPerSecond} MiB/s), ` +
      `node:crypto SHA-256 ${results.nodeCryptoPerSecond}/s (${results.nodeCryptoMiBPerSecond} MiB/s), ` +
      `ratio ${results.ratio} on ${results.meanPayloadBytes}-byte payloads`,
  );
  return results;
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await measureHashAction();
}
