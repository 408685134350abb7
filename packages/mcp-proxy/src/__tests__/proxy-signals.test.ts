/**
 * Signals: the host stops the proxy with SIGTERM, SIGHUP or SIGINT; the proxy passes the signal
 * to the server and ends as the server ends. A server still running after the host closed stdin
 * gets SIGTERM after a grace period. And a SIGTERM mid-stream leaves no recorded call without
 * its receipt. The server is a small real stdio MCP server that writes down what reaches it.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";

import { SERVER_KILL_GRACE_MS } from "../proxy.js";
import { verifyReceiptFile } from "../receipts-folder.js";
import { startLedgerWithAgent, type LedgerAndAgent } from "./support/ledger-and-agent.js";
import { proxyOptions, TSX_LOADER } from "./support/proxy-process.js";
import { waitForReceipts } from "./support/receipts.js";
import { startProxy, waitForLine, type ProxyRun } from "./support/run-proxy.js";

const SIGNAL_SERVER = fileURLToPath(new URL("./support/signal-recording-server.ts", import.meta.url));
const SIGNAL_NUMBERS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

describe("abas-mcp-proxy and signals", () => {
  let setup: LedgerAndAgent;
  let runs = 0;

  before(async () => {
    setup = await startLedgerWithAgent();
  });
  after(async () => {
    await setup?.stop();
  });

  /** A fresh record file and folders, and the signal-recording server started behind the proxy. */
  function serverBehindProxy(onSignal: "exit" | "die" | "ignore", onStdinEnd: "exit" | "linger") {
    runs += 1;
    const recordFile = join(setup.workDir, `signals-${runs}.txt`);
    const dirs = {
      queueDir: join(setup.workDir, `queue-signals-${runs}`),
      receiptsDir: join(setup.workDir, `receipts-signals-${runs}`),
    };
    const server = [
      process.execPath,
      "--import",
      TSX_LOADER,
      SIGNAL_SERVER,
      recordFile,
      onSignal,
      onStdinEnd,
    ];
    return {
      recordFile,
      dirs,
      server,
      recorded: () => (existsSync(recordFile) ? readFileSync(recordFile, "utf8") : ""),
    };
  }

  async function serverReady(run: ProxyRun): Promise<void> {
    while (!run.stderr().includes("signal-recording-server ready")) {
      if (run.child.exitCode !== null) throw new Error(`the proxy exited: ${run.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  for (const signal of ["SIGTERM", "SIGHUP", "SIGINT"] as const) {
    it(`passes ${signal} to the server and exits with the code the server exits with`, async () => {
      // Given the server behind the proxy, which exits with 100 + the signal's number
      const { dirs, server, recorded } = serverBehindProxy("exit", "exit");
      const run = startProxy(proxyOptions(setup, dirs), server);
      await serverReady(run);
      // When the host sends the proxy the signal
      run.child.kill(signal);
      // Then the server received it, once, and the proxy exits with the server's code
      assert.deepEqual(await run.exited, { code: 100 + SIGNAL_NUMBERS[signal], signal: null });
      assert.equal(recorded(), `${signal}\n`);
      assert.equal(run.stdout(), "");
    });
  }

  for (const signal of ["SIGTERM", "SIGHUP"] as const) {
    it(`dies of ${signal} when the server it passed ${signal} to dies of it`, async () => {
      const { dirs, server, recorded } = serverBehindProxy("die", "exit");
      const run = startProxy(proxyOptions(setup, dirs), server);
      await serverReady(run);
      run.child.kill(signal);
      assert.deepEqual(await run.exited, { code: null, signal });
      assert.equal(recorded(), `${signal}\n`);
    });
  }

  it("sends SIGTERM to a server still running after the host closed stdin, and exits as it does", async () => {
    // Given a server that keeps running when its stdin ends
    const { dirs, server, recorded } = serverBehindProxy("exit", "linger");
    const run = startProxy(proxyOptions(setup, dirs), server);
    await serverReady(run);
    // When the host closes the proxy's stdin
    run.child.stdin.end();
    // Then the server saw its stdin end, then, after the grace period, SIGTERM from the proxy
    assert.deepEqual(await run.exited, { code: 100 + SIGNAL_NUMBERS.SIGTERM, signal: null });
    assert.equal(recorded(), "stdin closed\nSIGTERM\n");
  });

  it(`kills with SIGKILL a server that ignores the SIGTERM passed on, ${SERVER_KILL_GRACE_MS} ms later (before the official client kills the proxy), and dies as it did`, async () => {
    // Given a server that ignores SIGTERM and keeps running when its stdin ends
    const { dirs, server, recorded } = serverBehindProxy("ignore", "linger");
    const run = startProxy(proxyOptions(setup, dirs), server);
    await serverReady(run);
    // When the host closes stdin, then sends SIGTERM, as the official client's close() does
    run.child.stdin.end();
    while (!recorded().includes("stdin closed")) await new Promise((resolve) => setTimeout(resolve, 20));
    run.child.kill("SIGTERM");
    // Then the server got SIGTERM, then SIGKILL from the proxy, which dies of SIGKILL as the server did
    assert.deepEqual(await run.exited, { code: null, signal: "SIGKILL" });
    assert.equal(recorded(), "stdin closed\nSIGTERM\n");
    assert.match(
      run.stderr(),
      new RegExp(`the server did not exit within ${SERVER_KILL_GRACE_MS} ms of SIGTERM: SIGKILL`),
    );
  });

  it("sends no signal to a server that exits when the host closes stdin", async () => {
    const { dirs, server, recorded } = serverBehindProxy("exit", "exit");
    const run = startProxy(proxyOptions(setup, dirs), server);
    await serverReady(run);
    run.child.stdin.end();
    assert.deepEqual(await run.exited, { code: 0, signal: null });
    assert.equal(recorded(), "stdin closed\n");
  });

  it("saves the receipt of every call it forwarded before SIGTERM, and dies of SIGTERM as the server did", async () => {
    // Given the server behind the proxy, whose batches wait 400 ms, and a host that sends 300 calls at once
    const { dirs, server, recorded } = serverBehindProxy("die", "exit");
    const run = startProxy([...proxyOptions(setup, dirs), "--max-batch-delay-ms", "400"], server);
    run.child.stdin.write(
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}\n',
    );
    await waitForLine(run, '"id":0,');
    run.child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    const calls = Array.from(
      { length: 300 },
      (_, index) =>
        `{"jsonrpc":"2.0","id":${index + 1},"method":"tools/call","params":{"name":"echo","arguments":{"message":"call ${index + 1}"}}}\n`,
    );
    run.child.stdin.write(calls.join(""));
    // When the host sends SIGTERM while responses are streaming back
    await waitForLine(run, '"id":20,');
    run.child.kill("SIGTERM");
    const exit = await run.exited;

    // Then the server got SIGTERM and the proxy died of it, as the server did
    assert.equal(recorded(), "SIGTERM\n");
    assert.deepEqual(exit, { code: null, signal: "SIGTERM" }, run.stderr());
    // And before it exited, it saved a receipt for every call whose response reached the host, each verifying
    const answered = run
      .stdout()
      .split("\n")
      .filter((line) => line.includes('"Echo: call '))
      .map((line) => (JSON.parse(line) as { id: number }).id);
    assert.ok(answered.length >= 20, `${answered.length} calls answered`);
    const entries = await waitForReceipts(dirs.receiptsDir, answered.length, 0);
    const messages = new Set(entries.map((entry) => (entry.call?.arguments as { message: string }).message));
    for (const id of answered) assert.ok(messages.has(`call ${id}`), `no receipt for call ${id}`);
    assert.equal(entries.length, answered.length);
    for (const entry of entries) await verifyReceiptFile(entry, { rpcUrl: setup.rpcUrl });
    // And nothing is left in its queue
    assert.equal(readFileSync(join(dirs.queueDir, "queue.jsonl"), "utf8"), "");
  });
});
