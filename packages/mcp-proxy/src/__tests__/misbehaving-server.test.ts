/**
 * A server that answers a tools/call with a response the official MCP client drops, then with the
 * answer that client acts on: the proxy must not record the first (the host never takes it) and must
 * not pass the second unrecorded (the host would act on it). The host gets
 * ABAS_SDK__TOOL_CALL_NOT_RECORDED instead, and the proxy goes on. And a proxy whose attestor cannot
 * take another call does not forward it. The official client, a real ledger, and a real (scripted)
 * stdio server.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";

import { McpError } from "@modelcontextprotocol/sdk/types.js";

import { verifyReceiptFile } from "../receipts-folder.js";
import { startLedgerWithAgent, type LedgerAndAgent } from "./support/ledger-and-agent.js";
import {
  connectClient,
  proxyCommand,
  proxyOptions,
  TSX_LOADER,
  type ConnectedClient,
} from "./support/proxy-process.js";
import { waitForReceipts } from "./support/receipts.js";
import { startProxy, waitForLine } from "./support/run-proxy.js";

const MISBEHAVING_SERVER = fileURLToPath(new URL("./support/misbehaving-server.ts", import.meta.url));
const DECOYS = ["batch", "result-string", "error-null", "bad-error", "huge", "deep"] as const;

/** The error the host gets for a call the proxy did not record, with its code name. */
async function assertNotRecorded(call: Promise<unknown>): Promise<void> {
  await assert.rejects(call, (error: unknown) => {
    assert.ok(error instanceof McpError, String(error));
    assert.equal(error.code, -32603);
    assert.equal((error.data as { codeName?: string }).codeName, "ABAS_SDK__TOOL_CALL_NOT_RECORDED");
    return true;
  });
}

describe("abas-mcp-proxy in front of a server that misbehaves", () => {
  let setup: LedgerAndAgent;
  let runs = 0;
  const clients: ConnectedClient[] = [];

  before(async () => {
    setup = await startLedgerWithAgent();
  });
  after(async () => {
    for (const { client } of clients) await client.close().catch(() => undefined);
    await setup?.stop();
  });

  /** The folders, the proxy's options and the server's command of a new run, and how to connect the official client to it. */
  function proxyRun(decoy: string, rpcUrl: string, extra: readonly string[] = []) {
    runs += 1;
    const linesFile = join(setup.workDir, `misbehaving-lines-${runs}.jsonl`);
    const receiptsDir = join(setup.workDir, `misbehaving-receipts-${runs}`);
    const options = proxyOptions(
      { ...setup, rpcUrl },
      { queueDir: join(setup.workDir, `misbehaving-queue-${runs}`), receiptsDir },
      extra,
    );
    const server = [process.execPath, "--import", TSX_LOADER, MISBEHAVING_SERVER, linesFile, decoy];
    /** The lines the server received, as they came. */
    const received = () =>
      existsSync(linesFile) ? readFileSync(linesFile, "utf8").split("\n").filter(Boolean) : [];
    return {
      receiptsDir,
      options,
      server,
      received,
      callsReached: () =>
        received().filter((line) => (JSON.parse(line) as { method?: string }).method === "tools/call").length,
      connect: () =>
        connectClient(proxyCommand(options, server)).then((connected) => {
          clients.push(connected);
          connected.client.onerror = () => {}; // the client reports each response it drops
          return connected;
        }),
    };
  }

  for (const decoy of DECOYS) {
    it(`answers a call whose first response the client drops (${decoy}) with ABAS_SDK__TOOL_CALL_NOT_RECORDED, records neither response, and goes on`, async () => {
      const { receiptsDir, connect } = proxyRun(decoy, setup.rpcUrl);
      const { client, stderr } = await connect();
      // When the host calls the tool the server answers twice
      await assertNotRecorded(client.callTool({ name: "transfer", arguments: { amount: 1 } }));
      // Then a call the server answers once is recorded as usual
      const echoed = await client.callTool({ name: "echo", arguments: { after: decoy } });
      assert.deepEqual(echoed.content, [{ type: "text", text: `echo: {"after":"${decoy}"}` }]);
      const [receipt, ...others] = await waitForReceipts(receiptsDir, 1);
      assert.equal(others.length, 0, "only the echo has a receipt");
      assert.equal(receipt?.call?.tool, "echo");
      await verifyReceiptFile(receipt!, { rpcUrl: setup.rpcUrl });
      // And the log says why the transfer's answers were not recorded
      assert.match(stderr(), /tool transfer: not recorded: the server's response: /);
      assert.match(
        stderr(),
        /tool transfer: not recorded: the server's response: the server answered the call again after an answer that was not recorded/,
      );
    });
  }

  describe("with a ledger that never answers", () => {
    let silent: Server;
    const sockets = new Set<Socket>();
    let silentUrl: string;
    before(async () => {
      silent = createServer((socket) => sockets.add(socket));
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    });
    after(() => {
      for (const socket of sockets) socket.destroy();
      silent?.close();
    });

    it("does not forward a call past --max-queued-calls, and answers it with ABAS_SDK__TOOL_CALL_NOT_RECORDED at once", async () => {
      // Given a proxy that keeps at most 2 calls waiting for the ledger, and a ledger that never confirms
      const { connect, callsReached } = proxyRun("batch", silentUrl, ["--max-queued-calls", "2"]);
      const { client, stderr, transport } = await connect();
      // When the host makes 3 calls
      for (const n of [1, 2]) await client.callTool({ name: "echo", arguments: { n } });
      await assertNotRecorded(client.callTool({ name: "echo", arguments: { n: 3 } }));
      // Then the server ran the first 2 only
      assert.equal(callsReached(), 2);
      // (stderr is another pipe than the answer's: its line may come a moment later)
      const refusedLine =
        /tool echo: not forwarded, since it could not be recorded: .*ABAS_SDK__ATTESTOR_QUEUE_FULL|tool echo: not forwarded, since it could not be recorded: .*2 actions/;
      for (let waited = 0; !refusedLine.test(stderr()) && waited < 10_000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      assert.match(stderr(), refusedLine);
      process.kill(transport.pid!, "SIGKILL"); // its queue keeps the 2 calls; the ledger never answers
    });

    it("takes a tools/call it cannot forward out of the host's batch, answering it in a batch, and forwards the rest", async () => {
      // Given a proxy that keeps at most 1 call waiting for the ledger, which holds one already
      const { options, server, received, callsReached } = proxyRun("batch", silentUrl, [
        "--max-queued-calls",
        "1",
      ]);
      const run = startProxy(options, server);
      try {
        run.child.stdin.write(
          '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}\n',
        );
        await waitForLine(run, '"id":0,');
        run.child.stdin.write(
          '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}\n',
        );
        await waitForLine(run, '"id":1,');
        // When the host sends a batch of a ping and another call
        const ping = '{"jsonrpc":"2.0","id":2,"method":"ping"}';
        run.child.stdin.write(
          `[${ping}, {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}]\n`,
        );
        // Then the host gets the call's error in a batch, and the server the ping alone, as sent
        const refusal = JSON.parse(await waitForLine(run, "ABAS_SDK__TOOL_CALL_NOT_RECORDED")) as {
          id: number;
          error: { data: { codeName: string } };
        }[];
        assert.deepEqual(
          refusal.map(({ id, error }) => [id, error.data.codeName]),
          [[3, "ABAS_SDK__TOOL_CALL_NOT_RECORDED"]],
        );
        while (received().at(-1)?.startsWith("[") !== true)
          await new Promise((resolve) => setTimeout(resolve, 20));
        assert.equal(received().at(-1), `[${ping}]`);
        assert.equal(callsReached(), 1);
      } finally {
        run.child.kill("SIGKILL"); // its queue keeps the call; the ledger never answers
      }
    });
  });
});
