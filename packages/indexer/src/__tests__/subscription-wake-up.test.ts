/**
 * The log subscription retried against a ledger WebSocket that does not answer: each retry's wait
 * leaves nothing behind on the long-lived stop signal (a listener per retry was a leak Node warned
 * about after ten retries, and it grew for as long as the WebSocket was down).
 */
import assert from "node:assert/strict";
import { setTimeout as delay } from "node:timers/promises";
import { describe, it } from "node:test";

import type { Address } from "@solana/kit";

import pino from "pino";
import { refusedUrl } from "@abas/test-support";

import { startSubscriptionWakeUp } from "../subscription-wake-up.js";

describe("subscription wake-up while the ledger's WebSocket is down", () => {
  it("retries many times without a warning of leaked listeners, and stops", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    const logged: unknown[] = [];
    const logger = pino({ level: "debug" }, { write: (line: string) => logged.push(line) });
    try {
      const wakeUp = startSubscriptionWakeUp({
        wsUrl: await refusedUrl("ws"),
        programId: "11111111111111111111111111111111" as Address,
        commitment: "confirmed",
        logger,
        onActivity: () => assert.fail("nothing listens: no activity"),
        retryMs: 1,
        maxRetryMs: 1,
      });
      const deadline = Date.now() + 20_000;
      while (logged.length < 30 && Date.now() < deadline) await delay(20);
      wakeUp.stop();
      await delay(50);
      assert.ok(logged.length >= 30, `retried ${logged.length} times`);
      assert.deepEqual(
        warnings.map((warning) => `${warning.name}: ${warning.message}`),
        [],
      );
    } finally {
      process.off("warning", onWarning);
    }
  });
});
