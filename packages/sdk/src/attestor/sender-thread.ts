/**
 * The entry of the attestor's sender thread (a `worker_threads` Worker): rebuilds the client from
 * the settings and key pairs it is given (CryptoKeys cross threads; their private keys stay
 * non-extractable) and runs a `BatchSender` on the queue file the attestor opened.
 */
import { parentPort, workerData } from "node:worker_threads";

import { LEASE_RENEW_MS, renewDirectoryLock, type LockFileId } from "@abas/dir-lock";
import { createSignerFromKeyPair, type KeyPairSigner } from "@solana/kit";

import type { ResolvedClientSettings } from "../client-config.js";
import { createClientContext } from "../client-context.js";
import { BatchSender, type FromSender, type SenderOptions, type ToSender } from "./batch-sender.js";
import { QueueJournal, type QueueBacklog } from "./queue-journal.js";

export type SenderSetup = Readonly<{
  journalFd: number;
  /** The queue's lock, renewed from this thread while it runs (`@abas/dir-lock`). */
  lock: LockFileId;
  settings: ResolvedClientSettings;
  agentKeyPair: KeyPairSigner["keyPair"];
  operatorKeyPair: KeyPairSigner["keyPair"];
  options: SenderOptions;
  backlog: QueueBacklog;
}>;

const port = parentPort!;
const setup = workerData as SenderSetup;
// Renewed here rather than on the agent's thread, which the agent's own work may hold for long.
setInterval(() => renewDirectoryLock(setup.lock.file), LEASE_RENEW_MS).unref();
const report = (message: FromSender): void => port.postMessage(message);

const [agent, operator] = await Promise.all([
  createSignerFromKeyPair(setup.agentKeyPair),
  createSignerFromKeyPair(setup.operatorKeyPair),
]);
const context = createClientContext({ ...setup.settings, agentKeypair: agent });
const journal = QueueJournal.attach(setup.journalFd, setup.options.durability, setup.lock);
const sender = new BatchSender(context, operator, setup.options, journal, setup.backlog, report);
port.on("message", (message: ToSender) => sender.receive(message));
report({ type: "ready" });
