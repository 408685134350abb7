/**
 * Durability: a tools/call whose response reached the host is on disk in the proxy's queue. The
 * proxy is killed with SIGKILL while the client calls tools; a new proxy on the same folders
 * sends what was left, and every forwarded call ends up with one receipt, none twice on the ledger.
 * And closing stdin shuts the proxy down only after what it recorded is on the ledger.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import { verifyReceiptFile } from "../receipts-folder.js";
import { generateSecretKey } from "@abas/sdk";

import { startLedgerWithAgent, type LedgerAndAgent } from "./support/ledger-and-agent.js";
import { connectClient, EVERYTHING_SERVER, proxyCommand, proxyOptions } from "./support/proxy-process.js";
import { agentBatchesOnLedger, waitForReceipts } from "./support/receipts.js";
import { startProxy, waitForLine, waitForStderr } from "./support/run-proxy.js";

const everything = [process.execPath, EVERYTHING_SERVER, "stdio"];
const INITIALIZE =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}\n';

describe("abas-mcp-proxy killed, restarted, and shut down", () => {
  let setup: LedgerAndAgent;

  before(async () => {
    setup = await startLedgerWithAgent();
  });
  after(async () => {
    await setup?.stop();
  });

  it("loses and duplicates no forwarded call when killed with SIGKILL mid-stream", async () => {
    // Given a proxy whose batches wait 400 ms, so that the kill finds calls both sent and queued
    const dirs = { queueDir: join(setup.workDir, "queue"), receiptsDir: join(setup.workDir, "receipts") };
    const options = [...proxyOptions(setup, dirs), "--max-batch-delay-ms", "400"];
    const first = await connectClient(proxyCommand(options, everything));
    // When the client calls echo in a loop and the proxy is killed with SIGKILL after 1.5 s
    const forwarded: string[] = [];
    let stopped = false;
    const calling = (async () => {
      for (let call = 0; !stopped; call++) {
        const message = `call ${call}`;
        try {
          await first.client.callTool({ name: "echo", arguments: { message } });
        } catch {
          return; // the proxy is gone: this call's response never reached the host
        }
        forwarded.push(message);
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    process.kill(first.transport.pid!, "SIGKILL");
    await calling;
    stopped = true;
    const receiptsAtKill = existsSync(dirs.receiptsDir) ? readdirSync(dirs.receiptsDir).length : 0;
    assert.ok(receiptsAtKill < forwarded.length, "the kill left forwarded calls without receipts");
    await first.client.close().catch(() => {});
    assert.ok(forwarded.length >= 5, `only ${forwarded.length} calls before the kill`);

    // And a new proxy is started on the same folders, and one more call goes through it
    const second = await connectClient(proxyCommand(options, everything));
    await second.client.callTool({ name: "echo", arguments: { message: "after the restart" } });
    forwarded.push("after the restart");

    // Then every forwarded call has its receipt
    const entries = await waitForReceipts(dirs.receiptsDir, forwarded.length);
    await second.client.close();
    const messages = entries.map((entry) => (entry.call?.arguments as { message: string }).message);
    for (const message of forwarded) assert.ok(messages.includes(message), `no receipt for ${message}`);
    // And at most the one call in flight at the kill was recorded without reaching the host
    assert.ok(
      entries.length <= forwarded.length + 1,
      `${entries.length} receipts for ${forwarded.length} calls`,
    );
    // And each receipt verifies, and the ledger holds each call once: as many items as receipts
    for (const entry of entries) await verifyReceiptFile(entry, { rpcUrl: setup.rpcUrl });
    const batches = await agentBatchesOnLedger(setup.rpcUrl, setup.programId, setup.agentAddress);
    assert.ok(batches.every((batch) => batch.isComplete));
    assert.equal(new Set(entries.map((entry) => entry.receipt.actionHash)).size, entries.length);
    assert.equal(
      batches.reduce((sum, batch) => sum + batch.itemCount, 0),
      entries.length,
    );
  });

  it("on stdin close, sends what it recorded and saves the receipt before it exits", async () => {
    // Given a proxy whose batches would wait an hour, in front of a server behind tee
    const dirs = {
      queueDir: join(setup.workDir, "queue-close"),
      receiptsDir: join(setup.workDir, "receipts-close"),
    };
    const received = join(setup.workDir, "server-received.raw");
    const run = startProxy(
      [...proxyOptions(setup, dirs), "--max-batch-delay-ms", "3600000"],
      ["sh", "-c", 'tee "$0" | "$@"', received, ...everything],
    );
    // When the host writes messages by hand, spaced and escaped as no serializer would, and a tools/call
    const [initialize, initialized, toolsCall] = [
      INITIALIZE,
      '{ "jsonrpc" : "2.0" , "method" : "notifications\\/initialized" }\n',
      '{"jsonrpc":"2.0","id":"call-1","method":"tools\\/call","params":{"name":"echo","arguments":{"message":"caf\\u00e9","z":1.50,"a":[]}}}\n',
    ];
    const sent = [initialize, initialized, toolsCall];
    run.child.stdin.write(initialize);
    await waitForLine(run, '"id":1');
    run.child.stdin.write(initialized + toolsCall);
    await waitForLine(run, '"id":"call-1"');
    // And closes stdin
    run.child.stdin.end();
    const exit = await run.exited;

    // Then the proxy exits as the server did, cleanly
    assert.deepEqual(exit, { code: 0, signal: null }, run.stderr());
    // And the server received the host's bytes exactly
    assert.equal(readFileSync(received, "utf8"), sent.join(""));
    // And the call's receipt was saved before the exit, with the arguments as sent, and verifies
    const [entry, ...others] = await waitForReceipts(dirs.receiptsDir, 1, 0);
    assert.equal(others.length, 0);
    assert.deepEqual(entry!.call?.arguments, { message: "café", z: 1.5, a: [] });
    assert.equal(entry!.call?.tool, "echo");
    await verifyReceiptFile(entry!, { rpcUrl: setup.rpcUrl });
  });

  /**
   * A running proxy whose receipts folder became a file (as a full or unwritable disk fails its
   * writes) before an echo of `message` went through it.
   */
  async function echoWithUnwritableReceipts(name: string, message: string) {
    const dirs = {
      queueDir: join(setup.workDir, `queue-${name}`),
      receiptsDir: join(setup.workDir, `receipts-${name}`),
    };
    const run = startProxy(proxyOptions(setup, dirs), everything);
    run.child.stdin.write(INITIALIZE);
    await waitForLine(run, '"id":1');
    rmSync(dirs.receiptsDir, { recursive: true });
    writeFileSync(dirs.receiptsDir, "not a folder");
    run.child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { message } } })}\n`,
    );
    await waitForLine(run, '"id":2');
    return { run, dirs };
  }

  it("saves a receipt it could not write once the receipts folder can be written, while it runs", async () => {
    // Given a running proxy that could not save the receipt of a call
    const { run, dirs } = await echoWithUnwritableReceipts("later", "later");
    await waitForStderr(run, /cannot save the receipt/, 60_000);
    // When the folder is fixed
    rmSync(dirs.receiptsDir);
    // Then the receipt is saved with its call while the proxy still runs, and verifies
    const [entry, ...others] = await waitForReceipts(dirs.receiptsDir, 1);
    assert.equal(run.child.exitCode, null);
    run.child.stdin.end();
    await run.exited;
    assert.equal(others.length, 0);
    assert.deepEqual(entry!.call?.arguments, { message: "later" });
    await verifyReceiptFile(entry!, { rpcUrl: setup.rpcUrl });
    assert.equal(readFileSync(join(dirs.queueDir, "calls.jsonl"), "utf8"), "");
  });

  it("keeps a call whose receipt file cannot be written, and saves the receipt at the next start", async () => {
    // Given a proxy that could not save the receipt of a call, shut down after its batch is on the ledger
    const { run: first, dirs } = await echoWithUnwritableReceipts("unsaved", "keep me");
    first.child.stdin.end();
    await first.exited;
    assert.match(
      first.stderr(),
      /cannot save the receipt of [0-9a-f]{64}: .*; tried again while the proxy runs, and at the next start/,
    );
    assert.equal(
      (await agentBatchesOnLedger(setup.rpcUrl, setup.programId, setup.agentAddress)).length > 0,
      true,
    );
    // Then the call is still in the queue folder, and once the folder can be written, the next
    // start saves its receipt with the call, which verifies
    assert.match(readFileSync(join(dirs.queueDir, "calls.jsonl"), "utf8"), /"keep me"/);
    rmSync(dirs.receiptsDir);
    const second = startProxy(proxyOptions(setup, dirs), everything);
    const [entry, ...others] = await waitForReceipts(dirs.receiptsDir, 1);
    second.child.stdin.end();
    await second.exited;
    assert.equal(others.length, 0);
    assert.deepEqual(entry!.call?.arguments, { message: "keep me" });
    await verifyReceiptFile(entry!, { rpcUrl: setup.rpcUrl });
    assert.equal(readFileSync(join(dirs.queueDir, "calls.jsonl"), "utf8"), "");
  });

  it("names a batch the ledger refuses (an agent never registered) on stderr, and keeps its calls queued", async () => {
    // Given a proxy whose agent key was never registered
    const unregistered = join(setup.workDir, "unregistered-agent.json");
    writeFileSync(unregistered, JSON.stringify([...generateSecretKey()]));
    const dirs = {
      queueDir: join(setup.workDir, "queue-refused"),
      receiptsDir: join(setup.workDir, "receipts-refused"),
    };
    const run = startProxy(
      [...proxyOptions(setup, dirs), "--agent-keypair", unregistered, "--max-batch-delay-ms", "3600000"],
      everything,
    );
    // When a tool is called and stdin closes
    run.child.stdin.write(INITIALIZE);
    await waitForLine(run, '"id":1');
    run.child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    run.child.stdin.write(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"refused"}}}\n',
    );
    await waitForLine(run, '"id":2');
    run.child.stdin.end();
    await run.exited;
    // Then stderr names the ledger it sends to, the failed batch and its cause, and no receipt was
    // saved
    assert.match(
      run.stderr(),
      new RegExp(`agent \\S+, ledger ${setup.rpcUrl.replaceAll(".", "\\.")}, queue `),
    );
    assert.match(
      run.stderr(),
      /tool echo: ABAS_RUNTIME__ATTESTOR_BATCH_FAILED: .*\(cause: ABAS_[A-Z_]+__[A-Z_]+/,
    );
    assert.match(
      run.stderr(),
      /the call stays in .*queue-refused, sent again while the proxy runs and at the next start/,
    );
    assert.equal(existsSync(dirs.receiptsDir) ? readdirSync(dirs.receiptsDir).length : 0, 0);
    // And the call is still in the queue folder
    assert.match(readFileSync(join(dirs.queueDir, "calls.jsonl"), "utf8"), /"refused"/);
  });
});
