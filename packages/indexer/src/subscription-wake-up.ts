/**
 * Wakes the poller as soon as the ledger announces a transaction that mentions the program
 * (`logsSubscribe`), so a new attestation reaches the database within one round of RPC calls
 * rather than one poll interval. It only carries "something happened": the poller reads what.
 * A dropped connection is re-established with backoff; nothing is lost meanwhile, because the
 * poller keeps polling on its interval.
 */
import { setTimeout as delay } from "node:timers/promises";

import { createSolanaRpcSubscriptions, type Address, type Commitment } from "@solana/kit";

import type { Logger } from "./logger.js";

export type SubscriptionWakeUpOptions = Readonly<{
  wsUrl: string;
  programId: Address;
  commitment: Commitment;
  logger: Logger;
  onActivity: () => void;
  /** First delay before re-subscribing; doubles up to maxRetryMs. */
  retryMs?: number;
  maxRetryMs?: number;
}>;

export type SubscriptionWakeUp = Readonly<{ stop: () => void }>;

/** Waits `ms`, or until `signal` aborts; leaves no listener on `signal` either way. */
async function sleep(ms: number, signal: AbortSignal): Promise<void> {
  await delay(ms, undefined, { signal }).catch(() => {});
}

export function startSubscriptionWakeUp(options: SubscriptionWakeUpOptions): SubscriptionWakeUp {
  const { wsUrl, programId, commitment, logger, onActivity } = options;
  const firstRetryMs = options.retryMs ?? 500;
  const maxRetryMs = options.maxRetryMs ?? 10_000;
  const stopped = new AbortController();
  // One signal per attempt, aborted when it ends: what the client registers on it (per attempt)
  // goes with it, rather than piling up on a signal that lives as long as the indexer.
  let attempt = new AbortController();
  const subscriptions = createSolanaRpcSubscriptions(wsUrl);

  const run = async (): Promise<void> => {
    let retryMs = firstRetryMs;
    while (!stopped.signal.aborted) {
      attempt = new AbortController();
      try {
        const notifications = await subscriptions
          .logsNotifications({ mentions: [programId] }, { commitment })
          .subscribe({ abortSignal: attempt.signal });
        logger.debug({ wsUrl }, "subscribed to the program's logs");
        retryMs = firstRetryMs;
        // Whatever landed while unsubscribed was not announced: poll once now.
        onActivity();
        for await (const _notification of notifications) onActivity();
      } catch (error) {
        if (stopped.signal.aborted) return;
        logger.debug({ err: error, retryMs }, "log subscription unavailable; polling continues");
      } finally {
        attempt.abort();
      }
      await sleep(retryMs, stopped.signal);
      retryMs = Math.min(retryMs * 2, maxRetryMs);
    }
  };
  void run();
  return {
    stop: () => {
      stopped.abort();
      attempt.abort();
    },
  };
}
