/**
 * A queue folder the proxy holds: the attestor that owns it and the calls journal beside it, each
 * receipt saved with its call in the receipts folder.
 */
import { lstatSync, statSync } from "node:fs";
import { join } from "node:path";

import { ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE, AbasError } from "@abas/errors";

import type { BatchItemReceipt, loadKeypair } from "@abas/sdk";
import { Attestor, makeFolders, queuedActionHashes } from "@abas/sdk/attestor";

import { CALLS_FILE_NAME, CallJournal } from "./call-journal.js";
import type { ProxyConfig } from "./proxy-config.js";
import { writeReceiptFile } from "./receipts-folder.js";

export type ProxyQueue = Readonly<{
  queueDir: string;
  attestor: Attestor;
  calls: CallJournal;
  /** Sends what is queued, saves the receipts, and lets the folder go. */
  close: () => Promise<void>;
}>;

type Keypair = Awaited<ReturnType<typeof loadKeypair>>;

export type ProxyQueueSettings = Readonly<{
  config: ProxyConfig;
  agent: Keypair;
  operator: Keypair;
  receiptsDir: string;
  log: (line: string) => void;
}>;

/**
 * Saves a receipt with its call, on the disk before it returns with "fsync" durability (the batch is
 * closed and the call let go after it). When the file cannot be written the error is thrown on: the
 * attestor then leaves the batch open and delivers its receipts again later (or the next start
 * does), and the journal keeps the call until then.
 */
async function saveReceipt(
  receiptsDir: string,
  calls: CallJournal,
  receipt: BatchItemReceipt,
  { durability, log }: Readonly<{ durability: ProxyConfig["durability"]; log: (line: string) => void }>,
): Promise<void> {
  const call = calls.receiptStarted(receipt.actionHash);
  let created = false;
  try {
    ({ created } = await writeReceiptFile(receiptsDir, { call, receipt }, { flush: durability === "fsync" }));
  } catch (error) {
    log(
      `cannot save the receipt of ${receipt.actionHash}: ${(error as Error).message}; tried again while the proxy runs, and at the next start`,
    );
    throw error;
  } finally {
    calls.receiptEnded(receipt.actionHash, created);
  }
}

/** A calls journal that cannot be used makes its queue folder unusable to the proxy. */
function callsJournalFailure(queueDir: string, error: unknown): AbasError {
  const code = (error as NodeJS.ErrnoException).code;
  return new AbasError(ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE, {
    queueDir,
    reason: `its calls journal cannot be used${code === undefined ? "" : ` (${code})`}: ${(error as Error).message}`,
    cause: error,
  });
}

/**
 * Takes `queueDir` (made if missing): `ABAS_SDK__ATTESTOR_QUEUE_LOCKED` while another proxy holds
 * it, `ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE` or `_CORRUPT` when it cannot be used.
 */
export async function openProxyQueue(queueDir: string, settings: ProxyQueueSettings): Promise<ProxyQueue> {
  const { config, log } = settings;
  try {
    makeFolders(queueDir);
  } catch {
    // Attestor.open tries again, and names the failure (ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE).
  }
  const folder = statSync(queueDir, { throwIfNoEntry: false });
  if (folder !== undefined && !folder.isDirectory()) {
    throw new AbasError(ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE, { queueDir, reason: "it is not a folder" });
  }
  // Checked before the attestor resumes the queue, whose receipts could not be saved without it.
  let callsFile: ReturnType<typeof lstatSync>;
  try {
    callsFile = lstatSync(join(queueDir, CALLS_FILE_NAME), { throwIfNoEntry: false });
  } catch (error) {
    throw callsJournalFailure(queueDir, error);
  }
  if (callsFile !== undefined && !callsFile.isFile()) {
    throw callsJournalFailure(queueDir, new Error(`${CALLS_FILE_NAME} is not a file`));
  }
  // The calls journal is opened once the attestor holds the queue's lock; receipts of batches
  // resumed at open wait for it.
  let journal!: { opened: (calls: CallJournal) => void; failed: (error: unknown) => void };
  const opening = new Promise<CallJournal>((opened, failed) => (journal = { opened, failed }));
  opening.catch(() => {}); // a failed open is thrown below; the receipts waiting for it stay queued
  const attestor = await Attestor.open({
    client: {
      rpcUrl: config.rpcUrl,
      agentKeypair: settings.agent,
      ...(config.programId === undefined ? {} : { programId: config.programId }),
    },
    operatorKeypair: settings.operator,
    queueDir,
    durability: config.durability,
    maxBatchDelayMs: config.maxBatchDelayMs,
    maxQueuedActions: config.maxQueuedCalls,
    // The attestor closes a batch on disk only once its receipts are saved.
    onReceipt: async (receipt) =>
      saveReceipt(settings.receiptsDir, await opening, receipt, { durability: config.durability, log }),
  });
  let calls: CallJournal;
  try {
    calls = new CallJournal(queueDir, config.durability, { queued: queuedActionHashes(queueDir) });
  } catch (error) {
    journal.failed(error);
    await attestor.close();
    throw callsJournalFailure(queueDir, error);
  }
  journal.opened(calls);
  return {
    queueDir,
    attestor,
    calls,
    close: async () => {
      try {
        await attestor.close();
      } finally {
        calls.close();
      }
    },
  };
}
