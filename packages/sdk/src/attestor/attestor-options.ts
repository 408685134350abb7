import { ABAS_SDK__INVALID_ARGUMENT, AbasError } from "@abas/errors";
import { MAX_BATCH_ITEMS } from "@abas/program-client";

import type { AttestationClientConfig } from "../client-config.js";
import { assertObject } from "../input-validation.js";
import type { KeypairSource } from "../keypair.js";
import type { BatchItemReceipt } from "../receipts.js";
import type { QueueDurability } from "./queue-journal.js";

export const DEFAULT_MAX_BATCH_SIZE = MAX_BATCH_ITEMS;
export const DEFAULT_MAX_BATCH_DELAY_MS = 2_000;
export const DEFAULT_MAX_IN_FLIGHT_BATCHES = 4;
export const DEFAULT_MAX_QUEUED_ACTIONS = 100_000;
export const DEFAULT_MAX_BATCH_ATTEMPTS = 5;
export const DEFAULT_RETRY_DELAY_MS = 1_000;
export const DEFAULT_SYNC_INTERVAL_MS = 100;

export type AttestorOptions = Readonly<{
  /** The agent, its RPC node and program, as for `AttestationClient`. */
  client: AttestationClientConfig;
  /** Pays for the batches; the key that registered the agent. */
  operatorKeypair: KeypairSource;
  /** The directory of the on-disk queue (created if missing); one attestor at a time owns it. */
  queueDir: string;
  /** A batch is sent as soon as it holds this many actions: 1..100, default 100. */
  maxBatchSize?: number;
  /** ...or when its oldest action has waited this long: default 2 000 ms. */
  maxBatchDelayMs?: number;
  /** Batches being sent at once; the rest of the queue waits on disk. Default 4. */
  maxInFlightBatches?: number;
  /** `record` throws `ABAS_SDK__ATTESTOR_QUEUE_FULL` when this many actions await confirmation; default 100 000. */
  maxQueuedActions?: number;
  /** Attempts per batch (each send itself retries with fresh blockhashes) before its actions fail; default 5. */
  maxBatchAttempts?: number;
  /** Wait before the next attempt, times the attempt number; default 1 000 ms. */
  retryDelayMs?: number;
  /** "fsync" (default) or "write": see `QueueDurability`. */
  durability?: QueueDurability;
  /** With "write" durability, the longest an action stays unflushed in the file cache; default 100 ms. */
  syncIntervalMs?: number;
  /**
   * Called with each action's receipt once its batch is complete on the ledger, also for actions
   * recorded before a restart, one receipt per turn of the event loop. After a crash a receipt
   * may be delivered again. It may return a promise (to save the receipt without holding up the
   * caller's thread): the batch is closed on disk, and `flush` returns, only once the promises of
   * its receipts have settled. When the hook throws, or its promise rejects, for any receipt of a
   * batch, the batch is not closed on disk: all its receipts are delivered again later
   * (`retryDelayMs` × attempt apart, at most 30 s), until the hook takes them, or by the next open
   * of the queue. The queue goes on meanwhile.
   */
  onReceipt?: (receipt: BatchItemReceipt) => unknown;
}>;

export type ResolvedAttestorOptions = Readonly<{
  queueDir: string;
  maxBatchSize: number;
  maxBatchDelayMs: number;
  maxInFlightBatches: number;
  maxQueuedActions: number;
  maxBatchAttempts: number;
  retryDelayMs: number;
  durability: QueueDurability;
  syncIntervalMs: number;
  /** Whether the hook took the receipt (false when it threw or its promise rejected); never rejects. */
  onReceipt: (receipt: BatchItemReceipt) => Promise<boolean> | boolean;
}>;

function invalidOption(argument: string, reason: string): AbasError {
  return new AbasError(ABAS_SDK__INVALID_ARGUMENT, { argument, reason });
}

function integerOption(value: unknown, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalidOption(name, `expected an integer in ${min}..${max}`);
  }
  return value;
}

function safeCallback(value: unknown): (receipt: BatchItemReceipt) => Promise<boolean> | boolean {
  if (value === undefined) return () => true;
  if (typeof value !== "function") throw invalidOption("onReceipt", "expected a function");
  // See AttestorOptions.onReceipt: a hook that fails leaves its batch open, it never stops the queue.
  return (receipt) => {
    try {
      const returned = (value as (receipt: BatchItemReceipt) => unknown)(receipt);
      // Any thenable counts (a promise of another realm or library too).
      return typeof (returned as PromiseLike<unknown> | undefined)?.then === "function"
        ? Promise.resolve(returned).then(
            () => true,
            () => false,
          )
        : true;
    } catch {
      return false;
    }
  };
}

/** The attestor's own options, checked, with their defaults. */
export function resolveAttestorOptions(options: AttestorOptions): ResolvedAttestorOptions {
  assertObject(options, "options");
  if (typeof options.queueDir !== "string" || options.queueDir === "") {
    throw invalidOption("queueDir", "expected the path of a directory");
  }
  const durability = options.durability ?? "fsync";
  if (durability !== "fsync" && durability !== "write") {
    throw invalidOption("durability", 'expected "fsync" or "write"');
  }
  const hour = 3_600_000;
  return {
    queueDir: options.queueDir,
    maxBatchSize: integerOption(
      options.maxBatchSize,
      "maxBatchSize",
      1,
      MAX_BATCH_ITEMS,
      DEFAULT_MAX_BATCH_SIZE,
    ),
    maxBatchDelayMs: integerOption(
      options.maxBatchDelayMs,
      "maxBatchDelayMs",
      0,
      hour,
      DEFAULT_MAX_BATCH_DELAY_MS,
    ),
    maxInFlightBatches: integerOption(
      options.maxInFlightBatches,
      "maxInFlightBatches",
      1,
      64,
      DEFAULT_MAX_IN_FLIGHT_BATCHES,
    ),
    maxQueuedActions: integerOption(
      options.maxQueuedActions,
      "maxQueuedActions",
      1,
      Number.MAX_SAFE_INTEGER,
      DEFAULT_MAX_QUEUED_ACTIONS,
    ),
    maxBatchAttempts: integerOption(
      options.maxBatchAttempts,
      "maxBatchAttempts",
      1,
      100,
      DEFAULT_MAX_BATCH_ATTEMPTS,
    ),
    retryDelayMs: integerOption(options.retryDelayMs, "retryDelayMs", 0, hour, DEFAULT_RETRY_DELAY_MS),
    durability,
    syncIntervalMs: integerOption(
      options.syncIntervalMs,
      "syncIntervalMs",
      1,
      60_000,
      DEFAULT_SYNC_INTERVAL_MS,
    ),
    onReceipt: safeCallback(options.onReceipt),
  };
}
