/**
 * One server configured in two hosts (or two sessions of one host) runs behind two proxies at
 * once. With the default queue folders both start and record every call: each proxy takes a
 * queue folder of the server's own (and its ledger's and receipts folder's) that no other proxy
 * holds; a queue such a proxy left behind (killed with calls not sent yet) is sent by a proxy of
 * that server that runs or starts later.
 */
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import { Attestor, queuedActionHashes } from "@abas/sdk/attestor";

import { LEFT_BEHIND_SCAN_MS } from "../left-behind.js";
import { parseProxyConfig, proxyFolders, QUEUES_PER_SERVER } from "../proxy-config.js";
import { verifyReceiptFile } from "../receipts-folder.js";

import { startLedgerWithAgent, type LedgerAndAgent } from "./support/ledger-and-agent.js";
import {
  connectClient,
  EVERYTHING_SERVER,
  proxyCommand,
  proxyOptions,
  queueFolderOf,
  recordThenKill,
} from "./support/proxy-process.js";
import { waitForReceipts } from "./support/receipts.js";
import { startProxy } from "./support/run-proxy.js";

const everything = [process.execPath, EVERYTHING_SERVER, "stdio"];

/** The default queue folders of a proxy started with `proxyArgs` and `server` under `home`. */
function defaultQueueFolders(
  agent: string,
  home: string,
  proxyArgs: readonly string[],
  server: readonly string[],
): string[] {
  const parsed = parseProxyConfig([...proxyArgs, "--", ...server], {});
  assert.ok(!parsed.help);
  const ownHome = process.env.HOME;
  process.env.HOME = home; // the proxy's home, which homedir() reads
  try {
    return proxyFolders(agent, parsed.config).queueDirs;
  } finally {
    if (ownHome === undefined) delete process.env.HOME;
    else process.env.HOME = ownHome;
  }
}

describe("abas-mcp-proxy: the same server behind two proxies at once", () => {
  let setup: LedgerAndAgent;
  let home: string;
  let receiptsDir: string;
  /** The default queue folders (no --queue-dir), under a home of the test's own. */
  let options: (batchDelayMs: number) => string[];

  before(async () => {
    setup = await startLedgerWithAgent();
    home = join(setup.workDir, "home");
    mkdirSync(home);
    receiptsDir = join(setup.workDir, "receipts");
    options = (batchDelayMs) =>
      proxyOptions(setup, { receiptsDir }, ["--max-batch-delay-ms", String(batchDelayMs)]);
  });
  after(async () => {
    await setup?.stop();
  });

  /** Waits until the receipts folder holds `count` receipts, then checks the echo call with `message` against the ledger. */
  async function verifiedReceiptOf(message: string, count: number, timeoutMs: number): Promise<void> {
    const receipts = await waitForReceipts(receiptsDir, count, timeoutMs);
    const entry = receipts.find(
      (candidate) => (candidate.call?.arguments as { message?: string } | undefined)?.message === message,
    );
    assert.ok(entry, `no receipt for the call "${message}" of the killed proxy`);
    await verifyReceiptFile(entry, { rpcUrl: setup.rpcUrl });
  }

  it("starts both and gives every call a receipt, each proxy on a queue folder of its own", async () => {
    // Given two hosts whose configs start the same server through the proxy, with default folders
    const first = await connectClient(proxyCommand(options(200), everything), { HOME: home });
    const second = await connectClient(proxyCommand(options(200), everything), { HOME: home });
    try {
      // When each host calls a tool
      await first.client.callTool({ name: "echo", arguments: { message: "from the first host" } });
      await second.client.callTool({ name: "echo", arguments: { message: "from the second host" } });
      // Then the two proxies hold two queue folders of that server
      const firstQueue = await queueFolderOf(first);
      const secondQueue = await queueFolderOf(second);
      const base = join(home, ".abas", "mcp-proxy", setup.agentAddress);
      assert.match(firstQueue, new RegExp(`^${base}/queue-[0-9a-f]{12}$`));
      assert.equal(secondQueue, `${firstQueue}-2`);
      // And both calls have receipts that verify against the ledger
      const receipts = await waitForReceipts(receiptsDir, 2);
      assert.deepEqual(
        receipts.map((entry) => (entry.call?.arguments as { message: string }).message).sort(),
        ["from the first host", "from the second host"],
      );
      for (const entry of receipts) await verifyReceiptFile(entry, { rpcUrl: setup.rpcUrl });
    } finally {
      await second.client.close();
      await first.client.close();
    }
  });

  it("sends the calls a killed second proxy left in its queue when the server next starts", async () => {
    // Given two proxies of the server, whose batches would wait ten minutes
    const first = await connectClient(proxyCommand(options(600_000), everything), { HOME: home });
    const second = await connectClient(proxyCommand(options(600_000), everything), { HOME: home });
    const secondQueue = await queueFolderOf(second);
    assert.match(secondQueue, /-2$/);
    // When the second records a call and is killed with SIGKILL before sending it
    const before = (await waitForReceipts(receiptsDir, 0)).length;
    await recordThenKill(second, "left behind");
    // And the first host closes its proxy, and the server is started again by one host
    await first.client.close();
    const third = await connectClient(proxyCommand(options(600_000), everything), { HOME: home });
    try {
      // Then the new proxy takes the first queue folder and sends the call the killed one left
      assert.doesNotMatch(await queueFolderOf(third), /-2$/);
      await verifiedReceiptOf("left behind", before + 1, 60_000);
      assert.match(third.stderr(), new RegExp(`sending the calls left in ${secondQueue}`));
    } finally {
      await third.client.close();
    }
  });

  it("stops, naming the lock, when every queue folder of the server is held: ABAS_SDK__ATTESTOR_QUEUE_LOCKED", async () => {
    // Given the server's QUEUES_PER_SERVER default queue folders, each held by an attestor of this process
    const server = [process.execPath, "-e", "setInterval(() => {}, 1000)"];
    const queueDirs = defaultQueueFolders(setup.agentAddress, home, options(200), server);
    assert.equal(queueDirs.length, QUEUES_PER_SERVER);
    const holders = await Promise.all(
      queueDirs.map((queueDir) =>
        Attestor.open({
          client: { rpcUrl: setup.rpcUrl, agentKeypair: setup.agentKeypairFile, programId: setup.programId },
          operatorKeypair: setup.operatorKeypairFile,
          queueDir,
        }),
      ),
    );
    try {
      // When one more proxy of that server starts
      const run = startProxy(options(200), server, { HOME: home });
      // Then it stops before starting the server, with the named error and nothing on stdout
      assert.equal((await run.exited).code, 1);
      assert.match(run.stderr(), new RegExp(`ABAS_SDK__ATTESTOR_QUEUE_LOCKED: .*${process.pid}`));
      assert.equal(run.stdout(), "");
    } finally {
      await Promise.all(holders.map((holder) => holder.close()));
    }
  });

  it("keeps the queue folders of different ledgers and receipts folders apart: a queued call goes where it was recorded for", () => {
    const server = ["mcp-server"];
    const local = defaultQueueFolders("Agent1", home, [], server);
    assert.notDeepEqual(
      defaultQueueFolders("Agent1", home, ["--rpc-url", "https://ledger.example"], server),
      local,
    );
    assert.notDeepEqual(
      defaultQueueFolders("Agent1", home, ["--program-id", setup.programId], server),
      local,
    );
    assert.notDeepEqual(defaultQueueFolders("Agent1", home, ["--receipts-dir", "/elsewhere"], server), local);
    assert.deepEqual(defaultQueueFolders("Agent1", home, ["--durability", "fsync"], server), local);
    assert.notDeepEqual(defaultQueueFolders("Agent1", home, [], ["mcp-server", "--other"]), local);
  });

  it("sends, while it runs, the calls another proxy of the server left when it was killed", async () => {
    // Given two proxies of the server: the first sends every 200 ms, the second would wait ten minutes
    const first = await connectClient(proxyCommand(options(200), everything), { HOME: home });
    const second = await connectClient(proxyCommand(options(600_000), everything), { HOME: home });
    try {
      const secondQueue = await queueFolderOf(second);
      const before = (await waitForReceipts(receiptsDir, 0)).length;
      // When the second records a call and is killed with SIGKILL (a host's session that crashed)
      await recordThenKill(second, "from a crashed session");
      // Then the first, still running, sends that call at its next look at the other folders
      await verifiedReceiptOf("from a crashed session", before + 1, LEFT_BEHIND_SCAN_MS + 30_000);
      assert.match(first.stderr(), new RegExp(`sending the calls left in ${secondQueue}`));
    } finally {
      await first.client.close();
    }
  });

  it("passes over damaged queue folders, naming each once, and takes the next", async () => {
    // Given the server's first default queue folder with a queue file that is not JSON lines, and
    // its second with a queued call but a folder where its calls journal should be
    const server = [process.execPath, "--no-warnings", EVERYTHING_SERVER, "stdio"];
    const [damaged, noJournal, next] = defaultQueueFolders(setup.agentAddress, home, options(200), server);
    mkdirSync(damaged!, { recursive: true });
    writeFileSync(join(damaged!, "queue.jsonl"), "not a queue line\n");
    mkdirSync(join(noJournal!, "calls.jsonl"), { recursive: true });
    writeFileSync(
      join(noJournal!, "queue.jsonl"),
      `${JSON.stringify({ a: 1, h: "ab".repeat(32), t: 1, p: 0 })}\n`,
    );
    // When a proxy of that server starts and runs for two looks at the other folders
    const proxy = await connectClient(proxyCommand(options(200), server), { HOME: home });
    try {
      // Then it runs on the third folder, naming the first two with their errors
      assert.equal(await queueFolderOf(proxy), next);
      assert.match(
        proxy.stderr(),
        new RegExp(`cannot use the queue folder ${damaged}: ABAS_SDK__ATTESTOR_QUEUE_CORRUPT`),
      );
      assert.match(
        proxy.stderr(),
        new RegExp(
          `cannot use the queue folder ${noJournal}: ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE: .*calls\\.jsonl`,
        ),
      );
      await proxy.client.callTool({ name: "echo", arguments: { message: "beside damaged folders" } });
      await new Promise((resolve) => setTimeout(resolve, LEFT_BEHIND_SCAN_MS * 2 + 5_000));
      // And its tries to send what they hold name each once, however often they are repeated
      for (const folder of [damaged!, noJournal!]) {
        const lines = proxy
          .stderr()
          .split("\n")
          .filter((line) => line.includes(`cannot send the calls left in ${folder}:`));
        assert.equal(lines.length, 1, `${folder}: ${lines.join(" / ")}`);
      }
    } finally {
      await proxy.client.close();
    }
    assert.equal(readFileSync(join(damaged!, "queue.jsonl"), "utf8"), "not a queue line\n");
  });

  it("leaves the other folders alone while the ledger does not answer, and shuts down without them", async () => {
    // Given two proxies of the server whose ledger does not answer (nothing listens at its address)
    const down = [...options(200), "--rpc-url", "http://127.0.0.1:9"];
    const first = await connectClient(proxyCommand(down, everything), { HOME: home });
    const second = await connectClient(proxyCommand(down, everything), { HOME: home });
    const secondQueue = await queueFolderOf(second);
    // When the second records a call and is killed, and the first keeps running, then is closed
    await recordThenKill(second, "while the ledger is down");
    await new Promise((resolve) => setTimeout(resolve, LEFT_BEHIND_SCAN_MS + 5_000));
    await first.client.close();
    // Then the first never took the folder the second left, which still holds the call
    assert.doesNotMatch(first.stderr(), /sending the calls left in/);
    assert.equal(queuedActionHashes(secondQueue).size, 1);
  });
});
