/**
 * The proxy end to end: the official MCP client starts `abas-mcp-proxy` over stdio in front of
 * the registry's reference servers, against a real `abas-ledger`. Every tools/call, successful or
 * not, ends up as a receipt file whose call hashes to the attested action and whose receipt
 * verifies against the ledger; the bytes each side receives are the bytes the other side sent.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import { summarizeReceiptFile, verifyReceiptFile, type ReceiptFileEntry } from "../receipts-folder.js";
import { startLedgerWithAgent, type LedgerAndAgent } from "./support/ledger-and-agent.js";
import {
  connectClient,
  EVERYTHING_SERVER,
  FILESYSTEM_SERVER,
  proxyCommand,
  proxyOptions,
} from "./support/proxy-process.js";
import { agentBatchesOnLedger, waitForReceipts } from "./support/receipts.js";
import { startProxy, waitForStderr } from "./support/run-proxy.js";

const everything = [process.execPath, EVERYTHING_SERVER, "stdio"];

function byTool(entries: readonly ReceiptFileEntry[], tool: string): ReceiptFileEntry[] {
  return entries.filter((entry) => entry.call?.tool === tool);
}

describe("abas-mcp-proxy in front of real MCP servers", () => {
  let setup: LedgerAndAgent;
  let run = 0;
  const folders = () => {
    run += 1;
    return {
      queueDir: join(setup.workDir, `queue-${run}`),
      receiptsDir: join(setup.workDir, `receipts-${run}`),
    };
  };

  before(async () => {
    setup = await startLedgerWithAgent();
  });
  after(async () => {
    await setup?.stop();
  });

  it("records every tools/call of server-everything, successful and erroring, as a receipt that verifies", async () => {
    // Given the official client talking to server-everything through the proxy
    const dirs = folders();
    const { client, transport } = await connectClient(proxyCommand(proxyOptions(setup, dirs), everything));
    try {
      // When it calls tools: two that succeed, one with invalid arguments, one that does not exist
      const tools = await client.listTools();
      assert.ok(
        tools.tools.some((tool) => tool.name === "echo"),
        "server-everything lists echo",
      );
      const echoed = await client.callTool({
        name: "echo",
        arguments: { message: "hello through the proxy" },
      });
      const sum = await client.callTool({ name: "get-sum", arguments: { a: 2, b: 3 } });
      const invalid = await client
        .callTool({ name: "get-sum", arguments: { a: "two" } })
        .catch((error: unknown) => error);
      const missing = await client
        .callTool({ name: "no-such-tool", arguments: {} })
        .catch((error: unknown) => error);
      assert.match(JSON.stringify(echoed.content), /hello through the proxy/);
      assert.match(JSON.stringify(sum.content), /5/);

      // Then four receipts arrive, one per call
      const entries = await waitForReceipts(dirs.receiptsDir, 4);
      assert.equal(entries.length, 4);
      // And each holds the call as the host and server saw it
      const [echo] = byTool(entries, "echo");
      assert.deepEqual(echo?.call?.arguments, { message: "hello through the proxy" });
      assert.deepEqual(echo?.call?.result, echoed);
      const sums = byTool(entries, "get-sum");
      assert.equal(sums.length, 2);
      assert.deepEqual(
        sums.map((entry) => entry.call?.arguments),
        [{ a: 2, b: 3 }, { a: "two" }],
      );
      const failedSum = sums[1]!.call!;
      // An error is recorded whether the server answers with a JSON-RPC error or an isError result
      assert.ok(
        failedSum.error !== undefined || (failedSum.result as { isError?: boolean }).isError === true,
        `the invalid call is recorded as failed: ${JSON.stringify(failedSum)} (client saw ${String(invalid)})`,
      );
      const [unknown] = byTool(entries, "no-such-tool");
      assert.ok(
        unknown?.call?.error !== undefined ||
          (unknown?.call?.result as { isError?: boolean }).isError === true,
        `the unknown tool is recorded as failed (client saw ${String(missing)})`,
      );
      for (const entry of entries) {
        const { startedAt, endedAt } = summarizeReceiptFile(entry);
        assert.ok(Date.parse(startedAt!) <= Date.parse(endedAt!));
        assert.equal(entry.receipt.actionType, "ToolCall");
        assert.equal(entry.receipt.agent, setup.agentAddress);
        assert.equal(entry.receipt.privacyMode, false);
        // And every receipt verifies against the ledger, its call hashing to the attested action
        await verifyReceiptFile(entry, { rpcUrl: setup.rpcUrl });
      }
    } finally {
      await client.close();
      await transport.close();
    }
  });

  it("records server-filesystem's calls in privacy mode: salted commitments that verify", async () => {
    // Given a folder served by server-filesystem, through the proxy with --privacy
    const dirs = folders();
    const served = join(setup.workDir, "served");
    mkdirSync(served, { recursive: true });
    writeFileSync(join(served, "notes.txt"), "attested reading\n");
    const { client } = await connectClient(
      proxyCommand(proxyOptions(setup, dirs, ["--privacy"]), [process.execPath, FILESYSTEM_SERVER, served]),
    );
    try {
      // When the client lists the folder, reads a file, and tries to read outside the folder
      const listing = await client.callTool({ name: "list_directory", arguments: { path: served } });
      const read = await client.callTool({
        name: "read_text_file",
        arguments: { path: join(served, "notes.txt") },
      });
      const outside = await client
        .callTool({ name: "read_text_file", arguments: { path: "/etc/hostname" } })
        .catch((error: unknown) => ({ thrown: String(error) }));
      assert.match(JSON.stringify(listing.content), /notes\.txt/);
      assert.match(JSON.stringify(read.content), /attested reading/);

      // Then three privacy-mode receipts arrive, each verifying against the ledger
      const entries = await waitForReceipts(dirs.receiptsDir, 3);
      assert.deepEqual(entries.map((entry) => entry.call?.tool).sort(), [
        "list_directory",
        "read_text_file",
        "read_text_file",
      ]);
      const refused = entries.find(
        (entry) => (entry.call?.arguments as { path?: string }).path === "/etc/hostname",
      );
      assert.ok(
        refused?.call?.error !== undefined ||
          (refused?.call?.result as { isError?: boolean }).isError === true,
        `the refused read is recorded as failed (client saw ${JSON.stringify(outside)})`,
      );
      for (const entry of entries) {
        assert.equal(entry.receipt.privacyMode, true);
        assert.match(entry.receipt.salt ?? "", /^[0-9a-f]{64}$/);
        assert.notEqual(entry.receipt.storedHash, entry.receipt.actionHash);
        await verifyReceiptFile(entry, { rpcUrl: setup.rpcUrl });
      }
      // And the ledger holds exactly these items, in complete batches
      const batches = await agentBatchesOnLedger(setup.rpcUrl, setup.programId, setup.agentAddress);
      const roots = new Set(entries.map((entry) => entry.receipt.merkleRoot));
      const ours = batches.filter((batch) => roots.has(batch.merkleRoot));
      assert.equal(
        ours.reduce((sum, batch) => sum + batch.itemCount, 0),
        3,
      );
      assert.ok(ours.every((batch) => batch.isComplete));
    } finally {
      await client.close();
    }
  });

  it("saves a receipt file for each of two calls identical in everything recorded (an id the host reused, one millisecond)", async () => {
    // Given a server that answers each request, and each request of a batch, with the same result
    const sameAnswers = `
      const answer = (message) => ({ jsonrpc: "2.0", id: message.id, result: { content: [{ type: "text", text: "same" }] } });
      require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
        const message = JSON.parse(line);
        process.stdout.write(JSON.stringify(Array.isArray(message) ? message.map(answer) : answer(message)) + "\\n");
      });`;
    const dirs = folders();
    const proxy = startProxy(proxyOptions(setup, dirs), [process.execPath, "-e", sameAnswers]);
    // When the host sends the same call twice under one id in one batch, and closes its end
    const call = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "echo", arguments: { message: "twice" } },
    };
    proxy.child.stdin.end(`${JSON.stringify([call, call])}\n`);
    const { code } = await proxy.exited;
    assert.equal(code, 0, proxy.stderr());
    // Then both calls have a receipt file, the two items of one action hash, and both verify
    const entries = await waitForReceipts(dirs.receiptsDir, 2);
    assert.equal(entries.length, 2);
    assert.equal(entries[0]!.receipt.actionHash, entries[1]!.receipt.actionHash);
    assert.deepEqual(entries.map((entry) => entry.receipt.index).sort(), [0, 1]);
    assert.deepEqual(entries[0]!.call, entries[1]!.call);
    for (const entry of entries) await verifyReceiptFile(entry, { rpcUrl: setup.rpcUrl });
  });

  it("keeps the exact text of a request and of a response that say more than JSON.parse reads, in a receipt that verifies", async () => {
    // Given a server whose answer holds a number with more digits than a 64-bit float keeps
    const bigNumberAnswer = `
      require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
        const { id } = JSON.parse(line);
        process.stdout.write('{"jsonrpc":"2.0","id":' + id + ',"result":{"content":[],"balance":12345678901234567891}}\\n');
      });`;
    const dirs = folders();
    const proxy = startProxy(proxyOptions(setup, dirs), [process.execPath, "-e", bigNumberAnswer]);
    // When the host sends a call whose arguments repeat a key
    const request =
      '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"pay","arguments":{"to":"alice","to":"mallory"}}}';
    proxy.child.stdin.end(`${request}\n`);
    const { code } = await proxy.exited;
    assert.equal(code, 0, proxy.stderr());
    // Then the receipt's call holds JSON.parse's readings and the exact texts, and it verifies
    const [entry] = await waitForReceipts(dirs.receiptsDir, 1);
    const response = '{"jsonrpc":"2.0","id":3,"result":{"content":[],"balance":12345678901234567891}}';
    assert.deepEqual(entry!.call?.arguments, { to: "mallory" });
    assert.equal(entry!.call?.requestText, request);
    assert.equal(entry!.call?.responseText, response);
    assert.equal(proxy.stdout(), `${response}\n`);
    await verifyReceiptFile(entry!, { rpcUrl: setup.rpcUrl });
    assert.match(
      proxy.stderr(),
      /tool pay \(id 3\): the request says more than JSON.parse reads of it \(an object repeats the key "to"\); its exact text is recorded too \(requestText\)/,
    );
    assert.match(
      proxy.stderr(),
      /tool pay \(id 3\): the response says more than JSON.parse reads of it \(the number 12345678901234567891 has more digits/,
    );
  });

  it("says at start when the agent is not registered with the program at --program-id (a wrong program id), and forwards all the same", async () => {
    const proxy = startProxy(
      [...proxyOptions(setup, folders()), "--program-id", "11111111111111111111111111111111"],
      [process.execPath, "-e", "process.stdin.pipe(process.stdout)"],
    );
    await waitForStderr(proxy, /is not registered/, 10_000);
    assert.match(
      proxy.stderr(),
      new RegExp(
        `the agent ${setup.agentAddress} is not registered with the ABAS program 11111111111111111111111111111111 on this ledger: .*check --program-id \\(ABAS_PROGRAM_ID\\)`,
      ),
    );
    proxy.child.stdin.end('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    assert.equal((await proxy.exited).code, 0);
    assert.match(proxy.stdout(), /"method":"ping"/);
  });

  it("forwards the bytes of every message unchanged, both ways", async () => {
    // Given tee on each side of the proxy: what the host sends and receives, what the server receives and sends
    const dirs = folders();
    const tap = (name: string) => join(setup.workDir, `tap-${run}-${name}.raw`);
    const taps = {
      HOST_TO_PROXY: tap("host-to-proxy"),
      PROXY_TO_SERVER: tap("proxy-to-server"),
      SERVER_TO_PROXY: tap("server-to-proxy"),
      PROXY_TO_HOST: tap("proxy-to-host"),
    };
    Object.assign(process.env, taps);
    const serverSide = [
      "sh",
      "-c",
      'tee "$PROXY_TO_SERVER" | "$@" | tee "$SERVER_TO_PROXY"',
      "sh",
      ...everything,
    ];
    const hostSide = ["sh", "-c", 'tee "$HOST_TO_PROXY" | "$@" | tee "$PROXY_TO_HOST"', "sh"];
    const { client } = await connectClient([
      ...hostSide,
      ...proxyCommand(proxyOptions(setup, dirs), serverSide),
    ]);
    // When the client lists tools, calls some (one erroring), reads a resource and a prompt
    await client.listTools();
    await client.callTool({ name: "echo", arguments: { message: "byte for byte: é ✓ \u2028" } });
    await client.callTool({ name: "get-tiny-image", arguments: {} });
    await client.callTool({ name: "no-such-tool", arguments: {} }).catch(() => undefined);
    await client.listResources();
    await client.listPrompts();
    await waitForReceipts(dirs.receiptsDir, 3);
    await client.close();
    for (const name of Object.keys(taps)) delete process.env[name];

    // Then the server received exactly the host's bytes, and the host exactly the server's
    const hostSent = readFileSync(taps.HOST_TO_PROXY);
    const serverSent = readFileSync(taps.SERVER_TO_PROXY);
    assert.match(hostSent.toString("utf8"), /"tools\/call"/);
    assert.ok(hostSent.length > 0 && serverSent.length > 0);
    assert.ok(readFileSync(taps.PROXY_TO_SERVER).equals(hostSent), "the server received the host's bytes");
    assert.ok(readFileSync(taps.PROXY_TO_HOST).equals(serverSent), "the host received the server's bytes");
  });
});
