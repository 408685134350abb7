/**
 * Wakes the poller as soon as the ledger announces a transaction that mentions the program
 * (`logsSubscribe`), so a new attestation reaches the database within one round of RPC calls
 * rather than one poll interval. It only carries "something happened": the poller reads what.
 * A dropped connection is re-established with backoff; nothing is lost meanwhile, because the
 * poller keeps polling on its interval.
 */
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

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export function startSubscriptionWakeUp(options: SubscriptionWakeUpOptions): SubscriptionWakeUp {
  const { wsUrl, programId, commitment, logger, onActivity } = options;
  const firstRetryMs = options.retryMs ?? 500;
  const maxRetryMs = options.maxRetryMs ?? 10_000;
  const abort = new AbortController();
  const subscriptions = createSolanaRpcSubscriptions(wsUrl);

  const run = async (): Promise<void> => {
    let retryMs = firstRetryMs;
    while (!abort.signal.aborted) {
      try {
        const notifications = await subscriptions
          .logsNotifications({ mentions: [programId] }, { commitment })
          .subscribe({ abortSignal: abort.signal });
        logger.debug({ wsUrl }, "subscribed to the program's logs");
        retryMs = firstRetryMs;
        // Whatever landed while unsubscribed was not announced: poll once now.
        onActivity();
        for await (const _notification of notifications) onActivity();
      } catch (error) {
        if (abort.signal.aborted) return;
        logger.debug({ err: error, retryMs }, "log subscription unavailable; polling continues");
      }
      await sleep(retryMs, abort.signal);
      retryMs = Math.min(retryMs * 2, maxRetryMs);
    }
  };
  void run();
  return { stop: () => abort.abort() };
}
