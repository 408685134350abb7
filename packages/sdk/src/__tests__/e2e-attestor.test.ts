/**
 * The durable attestor against the local ledger and real files: per-action receipts from batches
 * cut by size and by delay, flush, resume of a batch the ledger already holds, its named errors,
 * and what it keeps when its sender thread fails (faults injected on purpose).
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs, {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { once } from "node:events";
import { syncBuiltinESMExports } from "node:module";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import { directoryLockHolder } from "@abas/dir-lock";
import {
  ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED,
  ABAS_RUNTIME__AGENT_NOT_REGISTERED,
  ABAS_RUNTIME__ATTESTOR_BATCH_FAILED,
  ABAS_RUNTIME__ATTESTOR_SENDER_STOPPED,
  ABAS_RUNTIME__RPC_REQUEST_FAILED,
  ABAS_SDK__ATTESTOR_CLOSED,
  ABAS_SDK__ATTESTOR_QUEUE_CORRUPT,
  ABAS_SDK__ATTESTOR_QUEUE_FULL,
  ABAS_SDK__ATTESTOR_QUEUE_LOCKED,
  ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER,
  ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE,
  ABAS_SDK__INVALID_ARGUMENT,
  isAbasError,
} from "@abas/errors";
import { ActionType } from "@abas/program-client";

import { Attestor, type AttestorOptions } from "../attestor/index.js";
import { QUEUE_FILE_NAME } from "../attestor/queue-journal.js";
import {
  pidNamespaceSkip,
  spawnScriptInNewPidNamespace,
} from "../../../dir-lock/src/__tests__/support/pid-namespace.js";
import { AttestationClient } from "../client.js";
import type { BatchItemReceipt } from "../receipts.js";
import { generateSecretKey } from "../keypair.js";
import { startCountingRpcProxy } from "./support/counting-rpc-proxy.js";
import { countLeaves, readAgentBatches } from "./support/ledger-batches.js";
import { addressOf, fundedSecretKey, startTestLedger, type TestLedger } from "./support/local-ledger.js";
import { fullDisk } from "./support/full-disk.js";
import { captureThreads, SENDER_THREAD_FAULTS } from "./support/sender-thread-faults.js";

const ACTION_TYPES = ["Transaction", "ToolCall", "Decision", "ModelInvocation"] as const;

describe("Attestor on the local ledger", () => {
  let ledger: TestLedger;
  let client: AttestationClient;
  let agentKeypair: Uint8Array;
  let operatorKeypair: Uint8Array;
  const queueDirs: string[] = [];

  const newQueueDir = (): string => {
    const dir = mkdtempSync(join(tmpdir(), "abas-attestor-"));
    queueDirs.push(dir);
    return dir;
  };
  /** The client settings of an agent of this ledger, reached at `rpcUrl`. */
  const clientConfig = (agent: Uint8Array, rpcUrl = ledger.rpcUrl) => ({
    rpcUrl,
    agentKeypair: agent,
    programId: ledger.programId,
  });
  const options = (queueDir: string, extra: Partial<AttestorOptions> = {}): AttestorOptions => ({
    client: clientConfig(agentKeypair),
    operatorKeypair,
    queueDir,
    ...extra,
  });

  before(async () => {
    ledger = await startTestLedger();
    agentKeypair = generateSecretKey();
    operatorKeypair = await fundedSecretKey(ledger, 100n * 1_000_000_000n);
    client = new AttestationClient(clientConfig(agentKeypair));
    await client.registerAgent({ operatorKeypair });
  });
  after(async () => {
    await ledger?.stop();
    for (const dir of queueDirs) rmSync(dir, { recursive: true, force: true });
  });

  it("gives each of 150 actions its own verified receipt, from a full batch and one cut by delay", async () => {
    // Given an attestor that cuts batches at 100 actions or after 300 ms, its queue folder made by it
    const delivered: BatchItemReceipt[] = [];
    const queueDir = join(newQueueDir(), "agent", "queue");
    const attestor = await Attestor.open(
      options(queueDir, { maxBatchDelayMs: 300, onReceipt: (receipt) => delivered.push(receipt) }),
    );
    // When 150 actions of every type are recorded, every third in privacy mode
    const recorded = Array.from({ length: 150 }, (_, index) =>
      attestor.record({
        actionType: ACTION_TYPES[index % 4]!,
        payload: { tool: "search", index, run: "150 actions" },
        privacyMode: index % 3 === 0,
      }),
    );
    // Then record returned at once: nothing is confirmed yet, everything is on its way
    assert.equal(attestor.metrics.confirmed, 0);
    assert.equal(attestor.metrics.queued + attestor.metrics.inFlight, 150);
    const receipts = await Promise.all(recorded.map((action) => action.receipt));
    // And each receipt is its own action's, with the hash of its canonical payload
    for (const [index, receipt] of receipts.entries()) {
      assert.equal(receipt.actionHash, recorded[index]!.actionHash);
      assert.equal(
        receipt.actionHash,
        await AttestationClient.hashAction(
          AttestationClient.canonicalize({ tool: "search", index, run: "150 actions" }),
        ),
      );
      assert.equal(receipt.privacyMode, index % 3 === 0);
      assert.equal(receipt.salt !== undefined, index % 3 === 0);
    }
    // And the queue, which holds the privacy-mode actions' hashes and salts, is its owner's alone
    for (const [path, mode] of [
      [join(queueDir, ".."), 0o700],
      [queueDir, 0o700],
      [join(queueDir, "queue.jsonl"), 0o600],
    ] as const) {
      assert.equal((statSync(path).mode & 0o777).toString(8), mode.toString(8), path);
    }
    // And the actions went out as a batch of 100 (cut by size) and one of 50 (cut by delay)
    assert.deepEqual(
      [...new Set(receipts.map((receipt) => `${receipt.merkleRoot}:${receipt.itemCount}`))].map((key) =>
        Number(key.split(":")[1]),
      ),
      [100, 50],
    );
    // And every receipt verifies against the ledger
    for (const receipt of receipts) {
      const verification = await client.verifyReceipt(receipt);
      assert.equal(verification.valid, true, JSON.stringify(verification));
    }
    // And the hook saw every receipt once, and the metrics count them
    assert.equal(delivered.length, 150);
    assert.deepEqual(attestor.metrics, {
      queued: 0,
      inFlight: 0,
      batchesInFlight: 0,
      confirmed: 150,
      failed: 0,
      refused: 0,
    });
    await attestor.close();
  });

  it("flush sends a partial batch at once, waits for it, and empties the queue file", async () => {
    // Given an attestor whose delay would hold a partial batch for an hour
    const queueDir = newQueueDir();
    const attestor = await Attestor.open(options(queueDir, { maxBatchDelayMs: 3_600_000 }));
    const recorded = [1, 2, 3].map((index) =>
      attestor.record({ actionType: "Decision", payload: `flush ${index}` }),
    );
    // When it is flushed
    await attestor.flush();
    // Then the three actions are confirmed, in one batch of three
    assert.equal(attestor.metrics.confirmed, 3);
    const receipts = await Promise.all(recorded.map((action) => action.receipt));
    assert.deepEqual(
      receipts.map((receipt) => [receipt.index, receipt.itemCount]),
      [
        [0, 3],
        [1, 3],
        [2, 3],
      ],
    );
    // And with nothing left to do, the queue file is empty again
    assert.equal(readFileSync(join(queueDir, QUEUE_FILE_NAME), "utf8"), "");
    await attestor.close();
  });

  it("flushes an action recorded in the same turn with those recorded before it, in one batch", async () => {
    // Given three actions recorded in turns of their own, waiting for their batch's delay
    const attestor = await Attestor.open(options(newQueueDir(), { maxBatchDelayMs: 3_600_000 }));
    const recorded = [];
    for (const index of [1, 2, 3]) {
      recorded.push(attestor.record({ actionType: "Decision", payload: `earlier ${index}` }));
      await new Promise((resolve) => setImmediate(resolve));
    }
    // When a fourth is recorded and the attestor closed in the same turn, as an agent's last step does
    recorded.push(attestor.record({ actionType: "Decision", payload: "last" }));
    await attestor.close();
    // Then the four went out in one batch
    const receipts = await Promise.all(recorded.map((action) => action.receipt));
    assert.deepEqual(
      receipts.map((receipt) => [receipt.index, receipt.itemCount]),
      [
        [0, 4],
        [1, 4],
        [2, 4],
        [3, 4],
      ],
    );
  });

  it("closes a batch on disk only once the promises its onReceipt hook returned have settled", async () => {
    // Given a hook that saves each receipt asynchronously, held until the test lets it go
    const queueDir = newQueueDir();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const saved: string[] = [];
    const attestor = await Attestor.open(
      options(queueDir, {
        maxBatchDelayMs: 3_600_000,
        onReceipt: async (receipt) => {
          await released;
          saved.push(receipt.actionHash);
        },
      }),
    );
    const recorded = [1, 2].map((index) =>
      attestor.record({ actionType: "ToolCall", payload: `held ${index}` }),
    );
    // When the batch is confirmed while the hook still holds its receipts
    let flushed = false;
    const flushing = attestor.flush().then(() => (flushed = true));
    await Promise.all(recorded.map((action) => action.receipt));
    // Then the receipts are out, but the batch is not closed on disk and flush waits
    assert.equal(attestor.metrics.confirmed, 2);
    assert.doesNotMatch(readFileSync(join(queueDir, QUEUE_FILE_NAME), "utf8"), /"d":/);
    assert.equal(flushed, false);
    // And once the hook is done, flush returns with both receipts saved and the queue file emptied
    release();
    await flushing;
    assert.deepEqual(
      saved,
      recorded.map((action) => action.actionHash),
    );
    assert.equal(readFileSync(join(queueDir, QUEUE_FILE_NAME), "utf8"), "");
    await attestor.close();
  });

  it("hands a batch's receipts to onReceipt one per turn of the event loop: a slow hook never holds the thread for a whole batch", async () => {
    // Given a hook that keeps the thread busy for 2 ms per receipt (as writing a large call to a file does)
    const events: string[] = [];
    let handlesResolved = 0;
    const resolvedAtEachCall: number[] = [];
    const attestor = await Attestor.open(
      options(newQueueDir(), {
        maxBatchDelayMs: 3_600_000,
        onReceipt: () => {
          resolvedAtEachCall.push(handlesResolved);
          const until = performance.now() + 2;
          while (performance.now() < until);
          events.push("receipt");
        },
      }),
    );
    const recorded = Array.from({ length: 20 }, (_, index) =>
      attestor.record({ actionType: "ToolCall", payload: `one per turn ${index}` }),
    );
    for (const action of recorded) void action.receipt.then(() => (handlesResolved += 1));
    // And a timer of the agent's, due every millisecond
    const ticker = setInterval(() => events.push("tick"), 1);
    // When the batch of 20 is confirmed and its receipts delivered
    await attestor.flush();
    clearInterval(ticker);
    await Promise.all(recorded.map((action) => action.receipt));
    // Then the timer ran between the receipts of the batch, not only after all of them
    const during = events.slice(events.indexOf("receipt"), events.lastIndexOf("receipt"));
    assert.equal(events.filter((event) => event === "receipt").length, 20);
    assert.ok(during.filter((event) => event === "tick").length >= 10, events.join(" "));
    // And every handle of the batch had its receipt before the hook's second call: whatever
    // happens while the hook's calls are spread out, a confirmed action's receipt is not rejected
    assert.equal(resolvedAtEachCall[1], 20);
    await attestor.close();
  });

  it("leaves a batch open when its onReceipt hook fails for one receipt, and the next open delivers all of them again", async () => {
    // Given a hook that cannot save one receipt of a batch (its promise rejects)
    const queueDir = newQueueDir();
    const recordedHashes: string[] = [];
    const failing = async (receipt: BatchItemReceipt) => {
      if (receipt.actionHash === recordedHashes[1]) throw new Error("disk full");
    };
    const attestor = await Attestor.open(
      options(queueDir, { maxBatchDelayMs: 3_600_000, onReceipt: failing }),
    );
    const recorded = [1, 2, 3].map((index) =>
      attestor.record({ actionType: "ToolCall", payload: `hook fails ${index}` }),
    );
    recordedHashes.push(...recorded.map((action) => action.actionHash));
    // When the batch is confirmed and flushed
    await attestor.flush();
    await Promise.all(recorded.map((action) => action.receipt));
    await attestor.close();
    // Then its done line was never written: the queue keeps the batch
    assert.doesNotMatch(readFileSync(join(queueDir, QUEUE_FILE_NAME), "utf8"), /"d":/);
    assert.match(readFileSync(join(queueDir, QUEUE_FILE_NAME), "utf8"), /"b":1/);
    // And a new attestor delivers the three receipts again, closes the batch, and sends nothing twice
    const again: string[] = [];
    const resumed = await Attestor.open(
      options(queueDir, {
        onReceipt: (receipt) => {
          again.push(receipt.actionHash);
        },
      }),
    );
    await resumed.flush();
    await resumed.close();
    assert.deepEqual(again, recordedHashes);
    assert.equal(readFileSync(join(queueDir, QUEUE_FILE_NAME), "utf8"), "");
    const leaves = countLeaves(await readAgentBatches(ledger, client.agentAddress));
    for (const hash of recordedHashes) assert.equal(leaves.get(hash), 1, hash);
  });

  it("delivers the receipts of a batch left open again while it is open, and closes the batch once the hook takes them", async () => {
    // Given a hook whose storage fails once
    const queueDir = newQueueDir();
    const deliveries: string[] = [];
    let failures = 1;
    const attestor = await Attestor.open(
      options(queueDir, {
        maxBatchDelayMs: 3_600_000,
        retryDelayMs: 50,
        onReceipt: async (receipt) => {
          deliveries.push(receipt.actionHash);
          if (failures > 0) {
            failures -= 1;
            throw new Error("storage down");
          }
        },
      }),
    );
    const recorded = [1, 2].map((index) =>
      attestor.record({ actionType: "ToolCall", payload: `delivered again ${index}` }),
    );
    const hashes = recorded.map((action) => action.actionHash);
    // When the batch is confirmed and the hook fails for its first receipt
    await attestor.flush();
    // Then, while the attestor stays open, both receipts are delivered again and the batch closed
    const queueFile = join(queueDir, QUEUE_FILE_NAME);
    for (let waited = 0; !/"d":/.test(readFileSync(queueFile, "utf8")); waited += 20) {
      assert.ok(waited < 10_000, "the batch was not closed");
      await sleep(20);
    }
    assert.deepEqual(deliveries, [...hashes, ...hashes]);
    // And with nothing left, a flush empties the queue file
    await attestor.flush();
    assert.equal(readFileSync(queueFile, "utf8"), "");
    await attestor.close();
  });

  const failingHooks: [string, AttestorOptions["onReceipt"]][] = [
    [
      "throws",
      () => {
        throw new Error("hook bug");
      },
    ],
    // A thenable that is not a native promise (another library's, another realm's)
    [
      "returns a rejecting thenable",
      () => ({ then: (_: unknown, reject: (error: Error) => void) => reject(new Error("storage down")) }),
    ],
  ];
  for (const [what, onReceipt] of failingHooks) {
    it(`leaves a batch open when its onReceipt hook ${what}`, async () => {
      const queueDir = newQueueDir();
      const attestor = await Attestor.open(options(queueDir, { maxBatchDelayMs: 3_600_000, onReceipt }));
      const action = attestor.record({ actionType: "ToolCall", payload: `hook ${what}` });
      await attestor.flush();
      await action.receipt;
      await attestor.close();
      assert.doesNotMatch(readFileSync(join(queueDir, QUEUE_FILE_NAME), "utf8"), /"d":/);
      const again: string[] = [];
      const resumed = await Attestor.open(
        options(queueDir, { onReceipt: (receipt) => void again.push(receipt.actionHash) }),
      );
      await resumed.flush();
      await resumed.close();
      assert.deepEqual(again, [action.actionHash]);
    });
  }

  it("calls no hook once close has returned, though it was called while the receipts of a batch left open were being delivered again", async () => {
    // Given a hook that fails once, then takes receipts slowly (2 ms each), and closes the
    // attestor as the second delivery of the batch starts
    const queueDir = newQueueDir();
    let failures = 1;
    let closing: Promise<void> | undefined;
    let calls = 0;
    const attestor: Attestor = await Attestor.open(
      options(queueDir, {
        maxBatchDelayMs: 3_600_000,
        retryDelayMs: 50,
        onReceipt: () => {
          calls += 1;
          if (failures > 0) {
            failures -= 1;
            throw new Error("storage down");
          }
          if (calls === 31) closing = attestor.close(); // the first call of the second delivery
          const until = performance.now() + 2;
          while (performance.now() < until);
        },
      }),
    );
    for (let index = 0; index < 30; index++)
      attestor.record({ actionType: "ToolCall", payload: `closed while delivered again ${index}` });
    await attestor.flush();
    while (closing === undefined) await sleep(10);
    // When close returns
    await closing;
    const callsAtClose = calls;
    // Then no hook is called after it
    await sleep(300);
    assert.equal(calls, callsAtClose);
    assert.equal(callsAtClose, 60);
  });

  it("lets a process that never closes its attestor exit once its actions have their receipts", async () => {
    // Given an agent process that records three actions, prints each receipt, and never calls close
    const script = `
      const { Attestor } = await import(${JSON.stringify(new URL("../attestor/index.ts", import.meta.url).href)});
      const attestor = await Attestor.open({
        client: { rpcUrl: ${JSON.stringify(ledger.rpcUrl)}, programId: ${JSON.stringify(ledger.programId)}, agentKeypair: Uint8Array.from(${JSON.stringify([...agentKeypair])}) },
        operatorKeypair: Uint8Array.from(${JSON.stringify([...operatorKeypair])}),
        queueDir: ${JSON.stringify(newQueueDir())},
        maxBatchDelayMs: 100,
        onReceipt: (receipt) => console.log(receipt.actionHash),
      });
      for (const index of [1, 2, 3]) attestor.record({ actionType: "ToolCall", payload: "left open " + index });`;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let printed = "";
    child.stdout.on("data", (chunk: Buffer) => (printed += chunk.toString("utf8")));
    // Then the process exits by itself, cleanly, after all three receipts: the sender thread kept
    // it alive while they were due, and no longer
    const code = await new Promise((resolve) => child.once("close", resolve));
    assert.equal(code, 0);
    assert.equal(printed.trim().split("\n").length, 3);
  });

  it("continues a batch the ledger already holds instead of recording it again", async () => {
    // Given a batch that an attestor completed...
    const queueDir = newQueueDir();
    const first = await Attestor.open(options(queueDir, { maxBatchDelayMs: 0 }));
    const recorded = [1, 2, 3, 4].map((index) =>
      first.record({ actionType: "ToolCall", payload: `again ${index}` }),
    );
    const original = await Promise.all(recorded.map((action) => action.receipt));
    await first.close();
    // ...and a queue that still holds it without its "done" line, as when the process dies right
    // after the ledger confirmed the batch (a fault injected on purpose: the queue file is written
    // by hand, in the attestor's format)
    const queueFile = join(queueDir, QUEUE_FILE_NAME);
    assert.equal(readFileSync(queueFile, "utf8"), "");
    writeFileSync(
      queueFile,
      [
        ...original.map((receipt, index) =>
          JSON.stringify({ a: index + 1, h: receipt.actionHash, t: ActionType.ToolCall, p: 0 }),
        ),
        JSON.stringify({ b: 1, ids: [1, 2, 3, 4] }),
        "",
      ].join("\n"),
    );
    // When a new attestor opens the queue
    const resumed: BatchItemReceipt[] = [];
    const second = await Attestor.open(options(queueDir, { onReceipt: (receipt) => resumed.push(receipt) }));
    await second.flush();
    await second.close();
    // Then it delivers the same receipts again, from the same batch transaction
    assert.deepEqual(
      resumed.map((receipt) => [receipt.leafHash, receipt.txSignature]),
      original.map((receipt) => [receipt.leafHash, receipt.txSignature]),
    );
    // And the ledger holds that batch once
    const batches = await readAgentBatches(ledger, client.agentAddress);
    assert.equal(batches.filter((batch) => batch.merkleRoot === original[0]!.merkleRoot).length, 1);
    for (const receipt of original) assert.equal(countLeaves(batches).get(receipt.storedHash), 1);
  });

  it("refuses an action beyond maxQueuedActions with ABAS_SDK__ATTESTOR_QUEUE_FULL, and after close with ABAS_SDK__ATTESTOR_CLOSED", async () => {
    const attestor = await Attestor.open(
      options(newQueueDir(), { maxQueuedActions: 2, maxBatchDelayMs: 3_600_000 }),
    );
    attestor.record({ actionType: "ToolCall", payload: "full 1" });
    attestor.record({ actionType: "ToolCall", payload: "full 2" });
    assert.throws(
      () => attestor.record({ actionType: "ToolCall", payload: "full 3" }),
      (error) => isAbasError(error, ABAS_SDK__ATTESTOR_QUEUE_FULL) && error.context.maxQueuedActions === 2,
    );
    await attestor.close();
    assert.equal(attestor.metrics.confirmed, 2);
    assert.throws(
      () => attestor.record({ actionType: "ToolCall", payload: "after close" }),
      (error) => isAbasError(error, ABAS_SDK__ATTESTOR_CLOSED),
    );
  });

  it("tries a failed batch again in the background and gives its receipts to onReceipt once the ledger is back", async () => {
    // Given an attestor whose ledger is behind a proxy in an outage (injected on purpose)
    const proxy = await startCountingRpcProxy(ledger.rpcUrl);
    proxy.setFault(async () => ({
      status: 503,
      body: "the ledger is down (an outage injected by the test)",
    }));
    const delivered: BatchItemReceipt[] = [];
    const attestor = await Attestor.open(
      options(newQueueDir(), {
        client: clientConfig(agentKeypair, proxy.url),
        maxBatchAttempts: 1,
        retryDelayMs: 50,
        maxBatchDelayMs: 10,
        onReceipt: (receipt) => {
          delivered.push(receipt);
        },
      }),
    );
    try {
      // When three actions are recorded, Then their batch fails its attempts
      const handles = [1, 2, 3].map((index) =>
        attestor.record({ actionType: "ToolCall", payload: `during the outage ${index}` }),
      );
      for (const { receipt } of handles) {
        await assert.rejects(receipt, (error) => isAbasError(error, ABAS_RUNTIME__ATTESTOR_BATCH_FAILED));
      }
      assert.equal(attestor.metrics.failed, 3);
      // And once the ledger answers again, the same attestor records the batch and hands over its receipts
      proxy.setFault(undefined);
      for (let waited = 0; delivered.length < 3 && waited < 20_000; waited += 50) await sleep(50);
      assert.deepEqual(
        delivered.map((receipt) => receipt.actionHash).sort(),
        handles.map((handle) => handle.actionHash).sort(),
      );
      for (const receipt of delivered) assert.equal((await client.verifyReceipt(receipt)).valid, true);
      assert.deepEqual([attestor.metrics.confirmed, attestor.metrics.failed], [3, 0]);
    } finally {
      await attestor.close();
      await proxy.close();
    }
  });

  it("refuses for good an action of a type the agent's policy does not allow, and records the rest of its batch", async () => {
    // Given an agent whose policy allows ToolCall only
    const restrictedKeypair = generateSecretKey();
    const restricted = new AttestationClient(clientConfig(restrictedKeypair));
    await restricted.registerAgent({ operatorKeypair, allowedActionTypes: ["ToolCall"] });
    const queueDir = newQueueDir();
    const restrictedOptions = (): AttestorOptions =>
      options(queueDir, {
        client: clientConfig(restrictedKeypair),
        maxBatchDelayMs: 50,
      });
    const attestor = await Attestor.open(restrictedOptions());
    // When a Transaction is recorded among three ToolCalls, in one batch
    const handles = (["ToolCall", "Transaction", "ToolCall", "ToolCall"] as const).map((actionType, index) =>
      attestor.record({ actionType, payload: `policy ${index}` }),
    );
    // Then the Transaction is refused with the program's error
    await assert.rejects(handles[1]!.receipt, (error) =>
      isAbasError(error, ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED),
    );
    // And each ToolCall gets a receipt that verifies
    for (const index of [0, 2, 3]) {
      assert.equal((await restricted.verifyReceipt(await handles[index]!.receipt)).valid, true);
    }
    assert.deepEqual(
      [attestor.metrics.confirmed, attestor.metrics.failed, attestor.metrics.refused],
      [3, 0, 1],
    );
    await attestor.close();
    // And the next attestor on the queue has nothing left to send
    const reopened = await Attestor.open(restrictedOptions());
    await reopened.flush();
    assert.deepEqual([reopened.metrics.confirmed, reopened.metrics.failed], [0, 0]);
    await reopened.close();
  });

  it("closes only once the receipts of a batch confirmed in the background are delivered: a reopen does not deliver them again", async () => {
    // Given an agent nobody registered yet: its batch fails its one attempt, then is tried again in the background
    const unregisteredKeypair = generateSecretKey();
    const unregistered = new AttestationClient(clientConfig(unregisteredKeypair));
    const queueDir = newQueueDir();
    let deliveriesDone = 0;
    const backgroundOptions = (onReceipt: AttestorOptions["onReceipt"]): AttestorOptions =>
      options(queueDir, {
        client: clientConfig(unregisteredKeypair),
        maxBatchAttempts: 1,
        retryDelayMs: 50,
        maxBatchDelayMs: 10,
        onReceipt,
      });
    const attestor = await Attestor.open(
      backgroundOptions(async () => {
        await sleep(300); // saving the receipt somewhere
        deliveriesDone += 1;
      }),
    );
    const handles = [1, 2, 3].map((index) =>
      attestor.record({ actionType: "ToolCall", payload: `later ${index}` }),
    );
    for (const { receipt } of handles) {
      await assert.rejects(receipt, (error) => isAbasError(error, ABAS_RUNTIME__ATTESTOR_BATCH_FAILED));
    }
    // When the agent is registered and the background attempt records the batch while this thread
    // is busy (its confirmation waits in this thread's queue), and close() is called then
    await unregistered.registerAgent({ operatorKeypair });
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 4_000);
    await attestor.close();
    // Then close returned after the three deliveries, with the batch finished on disk
    assert.deepEqual([attestor.metrics.confirmed, deliveriesDone], [3, 3]);
    assert.match(readFileSync(join(queueDir, QUEUE_FILE_NAME), "utf8"), /"d":1/);
    // And an attestor opened on the queue afterwards delivers nothing again
    const again: BatchItemReceipt[] = [];
    const reopened = await Attestor.open(backgroundOptions((receipt) => void again.push(receipt)));
    await reopened.flush();
    await reopened.close();
    assert.equal(again.length, 0);
  });

  it("does not void a batch whose root the ledger holds, when a resent root is refused for a narrowed policy", async () => {
    // Given an agent whose policy allows ToolCall and Transaction
    const ownKeypair = generateSecretKey();
    const own = new AttestationClient(clientConfig(ownKeypair));
    await own.registerAgent({ operatorKeypair, allowedActionTypes: ["ToolCall", "Transaction"] });
    // And, between the attestor and the ledger, a proxy that injects faults on purpose: the root's
    // sendTransaction reaches the ledger and lands, but its answer is lost while the owner narrows
    // the policy to ToolCall; the next two getAccountInfo get a stale answer (no account): the
    // lookup before the resend and the one after its refusal
    let phase: "forward" | "armed" | "stale" = "forward";
    let staleAnswers = 0;
    const proxy = await startCountingRpcProxy(ledger.rpcUrl);
    proxy.setFault(async (request, forward) => {
      if (phase === "stale" && request.method === "getAccountInfo") {
        staleAnswers += 1;
        if (staleAnswers === 2) phase = "forward";
        const slot = Number(await ledger.rpc.getSlot().send());
        const result = { context: { slot }, value: null };
        return { status: 200, body: JSON.stringify({ jsonrpc: "2.0", id: request.id, result }) };
      }
      const answer = await forward();
      if (phase === "armed" && request.method === "sendTransaction") {
        await own.updateAgent({ operatorKeypair, status: "active", allowedActionTypes: ["ToolCall"] });
        phase = "stale";
        return { status: 503, body: "the answer was lost (a fault injected by the test)" };
      }
      return answer;
    });
    const attestor = await Attestor.open(
      options(newQueueDir(), {
        client: clientConfig(ownKeypair, proxy.url),
        maxBatchDelayMs: 10,
        retryDelayMs: 50,
      }),
    );
    try {
      phase = "armed";
      const handles = (["ToolCall", "Transaction"] as const).map((actionType) =>
        attestor.record({ actionType, payload: `sent once, answer lost: ${actionType}` }),
      );
      // Then the batch the ledger holds is completed, both actions included: one root, not two
      for (const { receipt } of handles) assert.equal((await own.verifyReceipt(await receipt)).valid, true);
      await attestor.flush();
      const batches = await readAgentBatches(ledger, own.agentAddress);
      assert.equal(batches.length, 1);
      assert.equal(attestor.metrics.refused, 0);
    } finally {
      await attestor.close();
      await proxy.close();
    }
  });

  it("lets one attestor at a time own a queue: ABAS_SDK__ATTESTOR_QUEUE_LOCKED", async () => {
    const queueDir = newQueueDir();
    const owner = await Attestor.open(options(queueDir));
    await assert.rejects(
      Attestor.open(options(queueDir)),
      (error) => isAbasError(error, ABAS_SDK__ATTESTOR_QUEUE_LOCKED) && error.context.pid === process.pid,
    );
    await owner.close();
    // Once closed, the queue can be opened again
    await (await Attestor.open(options(queueDir))).close();
  });

  it(
    "keeps its queue from an attestor of another pid namespace while the agent's own thread is held by its work",
    { skip: pidNamespaceSkip() },
    async () => {
      // Given an agent in a pid namespace of its own (a container) that opens an attestor, then
      // holds its thread for 8 s of work of its own (no timer of that thread runs meanwhile)
      const queueDir = newQueueDir();
      const script = `
        const { Attestor } = await import(${JSON.stringify(new URL("../attestor/index.ts", import.meta.url).href)});
        await Attestor.open({
          client: { rpcUrl: ${JSON.stringify(ledger.rpcUrl)}, programId: ${JSON.stringify(ledger.programId)}, agentKeypair: Uint8Array.from(${JSON.stringify([...agentKeypair])}) },
          operatorKeypair: Uint8Array.from(${JSON.stringify([...operatorKeypair])}),
          queueDir: ${JSON.stringify(queueDir)},
        });
        console.log("open");
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 8000);`;
      const agent = spawnScriptInNewPidNamespace(script);
      try {
        await once(agent.child.stdout, "data");
        // When an attestor of this process (another pid namespace) opens the same queue meanwhile
        // Then it is refused: the lock is renewed by the agent's sender thread, whose thread runs
        await assert.rejects(
          Attestor.open(options(queueDir)),
          (error) => isAbasError(error, ABAS_SDK__ATTESTOR_QUEUE_LOCKED) && error.context.pid === 1,
        );
      } finally {
        agent.kill();
      }
    },
  );

  /** An agent's script end: records an action every 50 ms, printing "R <hash>" for each record that returned, "T <code>" for the first that threw. */
  const RECORD_EVERY_50_MS = `setInterval(() => {
    try {
      console.log("R " + attestor.record({ actionType: "ToolCall", payload: "paused " + Math.random() }).actionHash);
    } catch (error) {
      console.log("T " + error.context?.__code);
      process.exit(0);
    }
  }, 50);`;

  /**
   * Runs `body` (a module script's end, with `attestor` open on a new queue through a counting
   * proxy, batches cut after `maxBatchDelayMs`) as process 1 of a pid namespace of its own; once
   * it has printed 3 lines starting with "R ", stops its process (as docker pause does), takes the
   * queue over from this process, sends everything, lets the agent's process go on, and returns
   * what it printed, the requests it sent after it went on, and the receipts the new owner delivered.
   * With `resumeDuringOpen`, the agent goes on in the middle of the new owner's open instead, as it
   * creates the rewritten queue file or as it removes the file's second name: a fault injected on
   * purpose into this process's file system calls, which first let the agent run for 300 ms.
   */
  async function takeOverWhilePaused(
    maxBatchDelayMs: number,
    body: string,
    { resumeDuringOpen }: { resumeDuringOpen?: "rewrite" | "second name removal" } = {},
  ) {
    const queueDir = newQueueDir();
    const proxy = await startCountingRpcProxy(ledger.rpcUrl);
    const agent = spawnScriptInNewPidNamespace(`
      const { Attestor } = await import(${JSON.stringify(new URL("../attestor/index.ts", import.meta.url).href)});
      const attestor = await Attestor.open({
        client: { rpcUrl: ${JSON.stringify(proxy.url)}, programId: ${JSON.stringify(ledger.programId)}, agentKeypair: Uint8Array.from(${JSON.stringify([...agentKeypair])}) },
        operatorKeypair: Uint8Array.from(${JSON.stringify([...operatorKeypair])}),
        queueDir: ${JSON.stringify(queueDir)},
        maxBatchDelayMs: ${maxBatchDelayMs},
      });
      ${body}`);
    let output = "";
    agent.child.stdout.setEncoding("utf8");
    agent.child.stdout.on("data", (chunk: string) => (output += chunk));
    const exited = new Promise((resolve) => agent.child.once("exit", resolve));
    try {
      while (output.split("\n").filter((line) => line.startsWith("R ")).length < 3) await sleep(20);
      agent.kill("SIGSTOP");
      // No renewal comes while it is stopped: this attestor takes the queue over after its watch
      const delivered: string[] = [];
      const real = { openSync: fs.openSync, rmSync: fs.rmSync };
      const resumeAt = (path: unknown, step: typeof resumeDuringOpen, test: (file: string) => boolean) => {
        if (resumeDuringOpen !== step || !test(String(path))) return;
        agent.kill("SIGCONT");
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
      };
      fs.openSync = ((file: fs.PathLike, ...rest: unknown[]) => {
        resumeAt(file, "rewrite", (path) => path.startsWith(join(queueDir, "queue.jsonl.tmp.")));
        return (real.openSync as (...args: unknown[]) => number)(file, ...rest);
      }) as typeof fs.openSync;
      fs.rmSync = ((path: fs.PathLike, ...rest: unknown[]) => {
        resumeAt(path, "second name removal", (file) => file === join(queueDir, "queue.jsonl.prev"));
        return (real.rmSync as (...args: unknown[]) => void)(path, ...rest);
      }) as typeof fs.rmSync;
      syncBuiltinESMExports();
      let owner: Attestor;
      try {
        owner = await Attestor.open(
          options(queueDir, { onReceipt: (receipt) => void delivered.push(receipt.actionHash) }),
        );
      } finally {
        Object.assign(fs, real);
        syncBuiltinESMExports();
      }
      await owner.flush();
      proxy.takeCounts();
      agent.kill("SIGCONT");
      await Promise.race([exited, sleep(10_000)]);
      await owner.close();
      return { lines: output.trim().split("\n"), sentAfterResume: proxy.takeCounts(), delivered };
    } finally {
      agent.kill("SIGCONT");
      agent.kill();
      await proxy.close();
    }
  }

  /** The new owner sent each of the actions the paused agent recorded, once. */
  async function assertSentOnceByNewOwner(recorded: readonly string[], delivered: readonly string[]) {
    assert.deepEqual([...delivered].sort(), [...recorded].sort());
    const leaves = countLeaves(await readAgentBatches(ledger, client.agentAddress));
    for (const hash of recorded) assert.equal(leaves.get(hash), 1);
  }

  it(
    "refuses a record of an attestor whose queue was taken over while its process was paused: ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER",
    { skip: pidNamespaceSkip() },
    async () => {
      // Given an agent that records an action every 50 ms (its batches held back), printing
      // "R <hash>" for each record that returned, "T <code>" for the first that threw
      const { lines, delivered } = await takeOverWhilePaused(3_600_000, RECORD_EVERY_50_MS);
      // When its queue is taken over while it is stopped, and it goes on
      // Then its first record after it went on threw ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER (none
      // returned once the queue was no longer its own), and the new owner sent what it recorded
      assert.equal(lines.at(-1), `T ${ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER}`);
      const recorded = lines.filter((line) => line.startsWith("R ")).map((line) => line.slice(2));
      assert.ok(recorded.length >= 3);
      await assertSentOnceByNewOwner(recorded, delivered);
    },
  );

  for (const step of ["rewrite", "second name removal"] as const) {
    it(
      `refuses a record of an attestor that goes on during its new owner's open (at its ${step}): no record that returned is lost`,
      { skip: pidNamespaceSkip() },
      async () => {
        // Given an agent that records an action every 50 ms (its batches held back)
        // When its queue is taken over while it is stopped, and it goes on in the middle of its
        // new owner's open of the queue file
        const { lines, delivered } = await takeOverWhilePaused(3_600_000, RECORD_EVERY_50_MS, {
          resumeDuringOpen: step,
        });
        // Then its first record threw ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER, and every record that
        // returned had its action read, and sent, by the new owner
        assert.equal(lines.at(-1), `T ${ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER}`);
        const recorded = lines.filter((line) => line.startsWith("R ")).map((line) => line.slice(2));
        await assertSentOnceByNewOwner(recorded, delivered);
      },
    );
  }

  it(
    "stops the sender of an attestor whose queue was taken over while its process was paused: its receipts reject with ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER, and the new owner sends its actions",
    { skip: pidNamespaceSkip() },
    async () => {
      // Given an agent that records 3 actions (their batch cut after 1 s), printing "R <hash>"
      // for each and "E <code>" for each receipt that rejects; then one more, printing "T <code>"
      // if that throws
      const { lines, sentAfterResume, delivered } = await takeOverWhilePaused(
        1_000,
        `const receipts = [1, 2, 3].map((index) => {
          const { actionHash, receipt } = attestor.record({ actionType: "ToolCall", payload: "paused " + index });
          console.log("R " + actionHash);
          return receipt.catch((error) => console.log("E " + error.context?.__code));
        });
        await Promise.all(receipts);
        try {
          console.log("R " + attestor.record({ actionType: "ToolCall", payload: "after" }).actionHash);
        } catch (error) {
          console.log("T " + error.context?.__code);
        }
        process.exit(0);`,
      );
      // When its queue is taken over while it is stopped, and it goes on, its batch due
      // Then it sent nothing more, and its receipts and its next record failed with
      // ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER
      assert.equal(sentAfterResume.sendTransaction, undefined, JSON.stringify(sentAfterResume));
      const recorded = lines.filter((line) => line.startsWith("R ")).map((line) => line.slice(2));
      assert.equal(recorded.length, 3);
      assert.deepEqual(lines.slice(3), [
        ...recorded.map(() => `E ${ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER}`),
        `T ${ABAS_SDK__ATTESTOR_QUEUE_TAKEN_OVER}`,
      ]);
      // And the new owner sent its three actions, each once
      await assertSentOnceByNewOwner(recorded, delivered);
    },
  );

  it("names a queue directory it cannot use: ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE, with the file system's error as its cause", async () => {
    // Given a regular file, and a queue directory whose queue file is a directory
    const base = newQueueDir();
    const file = join(base, "a-file");
    writeFileSync(file, "not a directory");
    const queueFileIsDirectory = join(base, "queue-file-is-a-directory");
    mkdirSync(join(queueFileIsDirectory, QUEUE_FILE_NAME), { recursive: true });
    const cases: [string, string][] = [
      [join(file, "queue"), "ENOTDIR"],
      [file, "EEXIST"],
      [queueFileIsDirectory, "EISDIR"],
    ];
    for (const [queueDir, code] of cases) {
      // When an attestor opens on each, Then it is refused with the named error
      await assert.rejects(
        Attestor.open(options(queueDir)),
        (error) =>
          isAbasError(error, ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE) &&
          error.context.queueDir === queueDir &&
          error.message.includes(`(${code})`) &&
          ((error as Error & { cause?: NodeJS.ErrnoException }).cause?.code ?? "") === code,
        queueDir,
      );
    }
    // And the queue whose file could not be read is not left locked
    assert.equal(directoryLockHolder(queueFileIsDirectory), undefined);
  });

  it("drops a torn last line but refuses a damaged queue with ABAS_SDK__ATTESTOR_QUEUE_CORRUPT", async () => {
    // Given a queue whose last line was cut short (its record call never returned)
    const queueDir = newQueueDir();
    const queueFile = join(queueDir, QUEUE_FILE_NAME);
    appendFileSync(queueFile, '{"a":1,"h":"ab');
    // Then it opens, with nothing to do
    const attestor = await Attestor.open(options(queueDir));
    assert.deepEqual(attestor.metrics, {
      queued: 0,
      inFlight: 0,
      batchesInFlight: 0,
      confirmed: 0,
      failed: 0,
      refused: 0,
    });
    await attestor.close();
    // Given a queue with a damaged line in the middle
    writeFileSync(queueFile, 'not json\n{"d":1}\n');
    await assert.rejects(
      Attestor.open(options(queueDir)),
      (error) => isAbasError(error, ABAS_SDK__ATTESTOR_QUEUE_CORRUPT) && error.context.line === 1,
    );
    // And the failed open left the queue unlocked
    writeFileSync(queueFile, "");
    await (await Attestor.open(options(queueDir))).close();
  });

  it("refuses an action a full disk cut short with ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE, and its queue stays readable", async () => {
    const queueDir = newQueueDir();
    const attestor = await Attestor.open(options(queueDir, { maxBatchDelayMs: 3_600_000 }));
    const first = attestor.record({ actionType: "ToolCall", payload: "before the disk filled" });
    // Fault injected on purpose: the disk takes 10 bytes of the next queue line, then is full
    const disk = fullDisk();
    try {
      disk.fillAfter(10);
      assert.throws(
        () => attestor.record({ actionType: "ToolCall", payload: "while the disk is full" }),
        (error) => isAbasError(error, ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE) && /ENOSPC/.test(error.message),
      );
    } finally {
      disk.restore();
    }
    const second = attestor.record({ actionType: "ToolCall", payload: "once there is room again" });
    await attestor.flush();
    await attestor.close();
    // Every action whose record returned has its receipt, and a new attestor opens the queue
    await Promise.all([first.receipt, second.receipt]);
    const reopened = await Attestor.open(options(queueDir));
    await reopened.close();
  });

  it("gives a batch identical to one recorded before that batch's receipts, as the README says", async () => {
    // Given one payload recorded alone, then again alone once its batch is on the ledger
    const attestor = await Attestor.open(options(newQueueDir(), { retryDelayMs: 20 }));
    const payload = { tool: "heartbeat", arguments: {} };
    const first = attestor.record({ actionType: "ToolCall", payload });
    await attestor.flush();
    const second = attestor.record({ actionType: "ToolCall", payload });
    await attestor.flush();
    // Then both receipts are the one batch's, valid, and both actions count as confirmed
    const [one, two] = await Promise.all([first.receipt, second.receipt]);
    assert.deepEqual(two, one);
    assert.equal((await client.verifyReceipt(two)).valid, true);
    assert.equal(attestor.metrics.confirmed, 2);
    await attestor.close();
  });

  it("keeps a batch whose queue line the disk refused, and records it once the disk takes it again", async (t) => {
    // Given an action recorded in a queue whose file then refuses every write (a real fault,
    // injected on purpose: the file made immutable, which needs root and a file system with
    // attributes, such as ext4)
    const queueDir = newQueueDir();
    const receipts: BatchItemReceipt[] = [];
    const attestor = await Attestor.open(
      options(queueDir, {
        maxBatchDelayMs: 3_600_000,
        retryDelayMs: 20,
        onReceipt: (receipt) => void receipts.push(receipt),
      }),
    );
    const first = attestor.record({ actionType: "ToolCall", payload: "recorded before the file froze" });
    const queueFile = join(queueDir, QUEUE_FILE_NAME);
    const frozen = spawnSync("chattr", ["+i", queueFile]);
    if (frozen.status !== 0) {
      t.skip(`chattr +i is not available here (${String(frozen.stderr ?? frozen.error).trim()})`);
      await attestor.close();
      return;
    }
    try {
      // When the batch is cut: its line cannot be written
      await attestor.flush();
      // Then its receipt rejects with the named error, the action is counted failed, not lost
      await assert.rejects(
        first.receipt,
        (error) => isAbasError(error, ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE) && /EPERM/.test(error.message),
      );
      assert.equal(attestor.metrics.failed, 1);
    } finally {
      spawnSync("chattr", ["-i", queueFile]);
    }
    // And once the file takes writes again, the background retry writes the line and records the
    // batch: onReceipt gets the receipt, and the attestor goes on recording
    while (receipts.length === 0) await sleep(20);
    assert.equal((await client.verifyReceipt(receipts[0]!)).valid, true);
    const second = attestor.record({ actionType: "ToolCall", payload: "recorded after" });
    await attestor.flush();
    assert.equal((await client.verifyReceipt(await second.receipt)).valid, true);
    assert.deepEqual([attestor.metrics.confirmed, attestor.metrics.failed], [2, 0]);
    await attestor.close();
  });

  it("rejects an action with both payload and actionHash with ABAS_SDK__INVALID_ARGUMENT, writing nothing", async () => {
    const attestor = await Attestor.open(options(newQueueDir()));
    assert.throws(
      () =>
        attestor.record({
          actionType: "ToolCall",
          payload: "x",
          actionHash: "00".repeat(32),
        }),
      (error) =>
        isAbasError(error, ABAS_SDK__INVALID_ARGUMENT) && error.context.argument === "payload | actionHash",
    );
    assert.equal(attestor.metrics.queued, 0);
    await attestor.close();
  });

  it("fails a batch that cannot be recorded with ABAS_RUNTIME__ATTESTOR_BATCH_FAILED and keeps it for the next open", async () => {
    // Given an attestor of an agent nobody registered
    const queueDir = newQueueDir();
    const unregistered = { ...options(queueDir, { maxBatchAttempts: 2, retryDelayMs: 10 }) };
    const nobodysAgent = generateSecretKey();
    const attestor = await Attestor.open({
      ...unregistered,
      client: { ...unregistered.client, agentKeypair: nobodysAgent },
    });
    // When an action is recorded and flushed
    const { receipt } = attestor.record({ actionType: "ToolCall", payload: "nobody's agent" });
    await attestor.flush();
    // Then its receipt rejects with the named error, whose cause says why: both made on the
    // attestor's sender thread, with their codes and contexts intact on this one
    const agentAddress = await addressOf(nobodysAgent);
    await assert.rejects(receipt, (error) => {
      assert.ok(isAbasError(error, ABAS_RUNTIME__ATTESTOR_BATCH_FAILED));
      assert.deepEqual(
        { ...error.context },
        { __code: ABAS_RUNTIME__ATTESTOR_BATCH_FAILED, queueDir, batchId: 1, itemCount: 1, attempts: 2 },
      );
      assert.ok(isAbasError(error.cause, ABAS_RUNTIME__AGENT_NOT_REGISTERED));
      assert.equal(error.cause.context.agent, agentAddress);
      assert.match(error.cause.message, new RegExp(agentAddress));
      return true;
    });
    assert.equal(attestor.metrics.failed, 1);
    await attestor.close();
    // And the batch is still in the queue: the next open sends it again
    assert.match(readFileSync(join(queueDir, QUEUE_FILE_NAME), "utf8"), /"b":1/);
    assert.equal(
      (await readAgentBatches(ledger, await addressOf(agentKeypair))).every((batch) => batch.isComplete),
      true,
    );
  });

  it("fails a batch whose ledger takes requests and never answers once requestTimeoutMs runs out, so close does not wait for ever", async () => {
    // Given an attestor whose ledger accepts connections and never answers (a fault injected on purpose)
    const silent = createServer(() => {});
    await new Promise<void>((listening) => silent.listen(0, "127.0.0.1", listening));
    const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const queueDir = newQueueDir();
    const attestor = await Attestor.open({
      ...options(queueDir, { maxBatchAttempts: 2, retryDelayMs: 10 }),
      client: { ...clientConfig(agentKeypair, silentUrl), requestTimeoutMs: 200 },
    });
    try {
      // When an action is recorded and the attestor closed
      const { receipt } = attestor.record({ actionType: "ToolCall", payload: "to a silent ledger" });
      await attestor.close();
      // Then its batch failed after its two attempts, each ended by the request timeout, and stays queued
      await assert.rejects(receipt, (error) => {
        assert.ok(isAbasError(error, ABAS_RUNTIME__ATTESTOR_BATCH_FAILED));
        assert.equal(error.context.attempts, 2);
        assert.ok(isAbasError(error.cause, ABAS_RUNTIME__RPC_REQUEST_FAILED));
        assert.match(error.cause.message, /no answer from the node within 0\.2 s$/);
        return true;
      });
      assert.match(readFileSync(join(queueDir, QUEUE_FILE_NAME), "utf8"), /"b":1/);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  for (const fault of SENDER_THREAD_FAULTS) {
    it(`stops with ABAS_RUNTIME__ATTESTOR_SENDER_STOPPED when its sender thread ${fault.name}, keeping every recorded action for the next open`, async () => {
      // Given an attestor holding five actions in no batch yet, its sender thread captured to
      // inject the fault
      const queueDir = newQueueDir();
      const captured = captureThreads();
      let attestor: Attestor;
      try {
        attestor = await Attestor.open(options(queueDir, { maxBatchDelayMs: 3_600_000 }));
      } finally {
        captured.restore();
      }
      assert.equal(captured.started.length, 1);
      const recorded = Array.from({ length: 5 }, (_, index) =>
        attestor.record({ actionType: "ToolCall", payload: { fault: fault.name, index } }),
      );
      // When the thread fails
      await fault.inject(captured.started[0]!);
      // Then every receipt awaited rejects with the named error, whose reason tells the fault
      const stopped = (error: unknown): boolean =>
        isAbasError(error, ABAS_RUNTIME__ATTESTOR_SENDER_STOPPED) &&
        error.context.queueDir === queueDir &&
        fault.reason.test(error.context.reason);
      for (const { receipt } of recorded) await assert.rejects(receipt, stopped);
      // And record refuses with it, writing nothing
      const queueFile = join(queueDir, QUEUE_FILE_NAME);
      const queueSize = statSync(queueFile).size;
      assert.throws(() => attestor.record({ actionType: "ToolCall", payload: "after the fault" }), stopped);
      assert.equal(statSync(queueFile).size, queueSize);
      // And flush and close reject with it, close releasing the queue
      await assert.rejects(attestor.flush(), stopped);
      await assert.rejects(attestor.close(), stopped);
      // And a new attestor on the queue sends every recorded action, once
      const resumed = await Attestor.open(options(queueDir));
      await resumed.flush();
      assert.equal(resumed.metrics.confirmed, 5);
      await resumed.close();
      const leaves = countLeaves(await readAgentBatches(ledger, await addressOf(agentKeypair)));
      for (const { actionHash } of recorded) assert.equal(leaves.get(actionHash), 1, actionHash);
    });
  }

  it("leaves a batch whose receipts were being saved when a stopped sender cut its close short to the next open, which delivers them again", async () => {
    // Given an attestor whose hook is still saving a confirmed batch's receipts when its sender
    // thread ends (the fault injected on purpose)
    const queueDir = newQueueDir();
    let releaseSaving: () => void = () => {};
    const saving = new Promise<void>((resolve) => (releaseSaving = resolve));
    const delivered: string[] = [];
    const captured = captureThreads();
    let attestor: Attestor;
    try {
      attestor = await Attestor.open(
        options(queueDir, {
          maxBatchDelayMs: 50,
          onReceipt: (receipt) => {
            delivered.push(receipt.actionHash);
            return saving;
          },
        }),
      );
    } finally {
      captured.restore();
    }
    const recorded = Array.from({ length: 3 }, (_, index) =>
      attestor.record({ actionType: "ToolCall", payload: { savingWhenStopped: index } }),
    );
    await Promise.all(recorded.map(({ receipt }) => receipt));
    await captured.started[0]!.terminate();
    // When it is closed, and then the hook's saving ends
    await assert.rejects(attestor.close(), (error) =>
      isAbasError(error, ABAS_RUNTIME__ATTESTOR_SENDER_STOPPED),
    );
    releaseSaving();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Then a new attestor on the queue delivers the batch's receipts again, and sends nothing twice
    const again: string[] = [];
    const resumed = await Attestor.open(
      options(queueDir, { onReceipt: (receipt) => void again.push(receipt.actionHash) }),
    );
    await resumed.flush();
    await resumed.close();
    assert.deepEqual(
      delivered,
      recorded.map(({ actionHash }) => actionHash),
    );
    assert.deepEqual(again, delivered);
    const leaves = countLeaves(await readAgentBatches(ledger, await addressOf(agentKeypair)));
    for (const { actionHash } of recorded) assert.equal(leaves.get(actionHash), 1, actionHash);
  });
});
