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

  function connect(decoy: string, rpcUrl: string, extra: readonly string[] = []) {
    runs += 1;
    const callsFile = join(setup.workDir, `misbehaving-calls-${runs}.jsonl`);
    const receiptsDir = join(setup.workDir, `misbehaving-receipts-${runs}`);
    const options = proxyOptions(
      { ...setup, rpcUrl },
      { queueDir: join(setup.workDir, `misbehaving-queue-${runs}`), receiptsDir },
      extra,
    );
    const server = [process.execPath, "--import", TSX_LOADER, MISBEHAVING_SERVER, callsFile, decoy];
    return {
      receiptsDir,
      callsReached: () =>
        existsSync(callsFile) ? readFileSync(callsFile, "utf8").split("\n").filter(Boolean).length : 0,
      connected: connectClient(proxyCommand(options, server)).then((connected) => {
        clients.push(connected);
        connected.client.onerror = () => {}; // the client reports each response it drops
        return connected;
      }),
    };
  }

  for (const decoy of DECOYS) {
    it(`answers a call whose first response the client drops (${decoy}) with ABAS_SDK__TOOL_CALL_NOT_RECORDED, records neither response, and goes on`, async () => {
      const { receiptsDir, connected } = connect(decoy, setup.rpcUrl);
      const { client, stderr } = await connected;
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
      const { connected, callsReached } = connect("batch", silentUrl, ["--max-queued-calls", "2"]);
      const { client, stderr, transport } = await connected;
      // When the host makes 3 calls
      for (const n of [1, 2]) await client.callTool({ name: "echo", arguments: { n } });
      await assertNotRecorded(client.callTool({ name: "echo", arguments: { n: 3 } }));
      // Then the server ran the first 2 only
      assert.equal(callsReached(), 2);
      assert.match(
        stderr(),
        /tool echo: not forwarded, since it could not be recorded: .*ABAS_SDK__ATTESTOR_QUEUE_FULL|tool echo: not forwarded, since it could not be recorded: .*2 actions/,
      );
      process.kill(transport.pid!, "SIGKILL"); // its queue keeps the 2 calls; the ledger never answers
    });
  });
});
