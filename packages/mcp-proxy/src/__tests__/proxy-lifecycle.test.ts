/**
 * What a host sees of the proxy's process: the server's exit code and signal come through, and
 * every mistake is a named error on stderr, with nothing on stdout (the protocol channel).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import { isAbasError, ABAS_SDK__INVALID_PROXY_CONFIG } from "@abas/errors";
import { generateSecretKey } from "@abas/sdk";
import { refusedPort } from "@abas/test-support";

import { parseProxyConfig } from "../proxy-config.js";
import { EVERYTHING_SERVER, proxyCommand } from "./support/proxy-process.js";
import { startProxy, waitForLine, waitForStderr } from "./support/run-proxy.js";

describe("abas-mcp-proxy as a process", () => {
  let dir: string;
  let options: string[];

  before(() => {
    dir = mkdtempSync(join(tmpdir(), "abas-mcp-proxy-life-"));
    const key = join(dir, "key.json");
    writeFileSync(key, JSON.stringify([...generateSecretKey()]));
    options = [
      "--agent-keypair",
      key,
      "--operator-keypair",
      key,
      "--queue-dir",
      join(dir, "queue"),
      "--receipts-dir",
      join(dir, "receipts"),
    ];
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("exits with the server's exit code", async () => {
    const run = startProxy(options, [process.execPath, "-e", "process.exit(3)"]);
    run.child.stdin.end();
    assert.deepEqual(await run.exited, { code: 3, signal: null });
    assert.equal(run.stdout(), "");
  });

  it("dies of the signal that ended the server", async () => {
    const run = startProxy(options, [process.execPath, "-e", "process.kill(process.pid, 'SIGTERM')"]);
    assert.deepEqual(await run.exited, { code: null, signal: "SIGTERM" });
  });

  it("passes SIGINT from the host to the server, and ends as the server ends", async () => {
    const run = startProxy(options, [
      process.execPath,
      "-e",
      "process.on('SIGINT', () => process.exit(42)); setInterval(() => {}, 1000); console.error('ready')",
    ]);
    await new Promise<void>((resolve) =>
      run.child.stderr.on("data", (chunk: Buffer) => chunk.includes("ready") && resolve()),
    );
    run.child.kill("SIGINT");
    assert.deepEqual(await run.exited, { code: 42, signal: null });
  });

  it("exits only once the host has everything the server wrote, however late the host reads", async () => {
    // Given a server that writes three 60 KB lines and exits, behind a proxy whose stdout is a
    // pipe (as a host that spawns it with os.pipe has it) that the host reads only 2 s later
    const talker = `
      const line = (n) => JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { n, data: "x".repeat(60_000) } }) + "\\n";
      process.stdout.write(line(1) + line(2) + line(3), () => process.exit(0));`;
    const host = spawn(
      "bash",
      [
        "-c",
        'set -o pipefail; "$@" < /dev/null | { sleep 2; cat; }',
        "bash",
        ...proxyCommand(options, [process.execPath, "-e", talker]),
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const chunks: Buffer[] = [];
    host.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    const code = await new Promise((resolve) => host.once("close", resolve));
    // Then it gets every byte, and the proxy exits with the server's code
    assert.equal(code, 0);
    const lines = Buffer.concat(chunks).toString("utf8").split("\n");
    assert.deepEqual(
      lines.map((line) => (line === "" ? "" : (JSON.parse(line) as { params: { n: number } }).params.n)),
      [1, 2, 3, ""],
    );
  });

  it("says at start that the ledger does not answer, and forwards all the same", async () => {
    const closedPort = await refusedPort();
    const run = startProxy(
      [...options, "--rpc-url", `http://127.0.0.1:${closedPort}`],
      [process.execPath, "-e", "process.stdin.pipe(process.stdout)"],
    );
    run.child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await waitForLine(run, '"method":"ping"');
    await waitForStderr(run, /does not answer/, 10_000);
    assert.match(
      run.stderr(),
      new RegExp(
        `the ledger at http://127\\.0\\.0\\.1:${closedPort} does not answer \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${closedPort}\\): tool calls are kept in .* and sent once it does; check --rpc-url \\(ABAS_RPC_URL\\)`,
      ),
    );
    run.child.stdin.end();
    assert.equal((await run.exited).code, 0);
  });

  it("names a server that cannot be started: ABAS_SDK__MCP_SERVER_NOT_STARTED", async () => {
    const run = startProxy(options, [join(dir, "no-such-server")]);
    const { code } = await run.exited;
    assert.equal(code, 1);
    assert.match(
      run.stderr(),
      /ABAS_SDK__MCP_SERVER_NOT_STARTED: The MCP server .*no-such-server could not be started: .*ENOENT/,
    );
    assert.equal(run.stdout(), "");
  });

  it("rejects a bad option, a bad variable or a missing server: ABAS_SDK__INVALID_PROXY_CONFIG", async () => {
    const cases: Array<[string[], NodeJS.ProcessEnv, RegExp]> = [
      [
        [...options, "--durability", "sometimes", "--", "server"],
        {},
        /--durability \(ABAS_DURABILITY\): expected "write" or "fsync"/,
      ],
      [
        [...options, "--", "server"],
        { ABAS_RPC_URL: "ftp://ledger" },
        /--rpc-url \(ABAS_RPC_URL\): expected the http\(s\) URL/,
      ],
      [[...options, "--max-batch-delay-ms", "soon", "--", "server"], {}, /--max-batch-delay-ms/],
      ...["", " ", "0x10", "1e3", "3600001"].map((value): [string[], NodeJS.ProcessEnv, RegExp] => [
        [...options, "--max-batch-delay-ms", value, "--", "server"],
        {},
        /--max-batch-delay-ms \(ABAS_MAX_BATCH_DELAY_MS\): expected/,
      ]),
      ...["-1", "0b11"].map((value): [string[], NodeJS.ProcessEnv, RegExp] => [
        [...options, "--", "server"],
        { ABAS_MAX_BATCH_DELAY_MS: value },
        /--max-batch-delay-ms \(ABAS_MAX_BATCH_DELAY_MS\): expected/,
      ]),
      ...["0", "1.5", "many"].map((value): [string[], NodeJS.ProcessEnv, RegExp] => [
        [...options, "--", "server"],
        { ABAS_MAX_QUEUED_CALLS: value },
        /--max-queued-calls \(ABAS_MAX_QUEUED_CALLS\): expected/,
      ]),
      [[...options, "--verbose", "--", "server"], {}, /Unknown option '--verbose'/],
      [options, {}, /server command: give the MCP server command after --/],
    ];
    for (const [argv, env, message] of cases) {
      assert.throws(
        () => parseProxyConfig(argv, env),
        (error: unknown) => isAbasError(error, ABAS_SDK__INVALID_PROXY_CONFIG) && message.test(error.message),
        `${argv.join(" ")} ${JSON.stringify(env)}`,
      );
    }
    // And the bin reports it by name on its first line, points to --help, and exits 1 without
    // starting anything
    const run = startProxy([...options, "--durability", "sometimes"], ["server"]);
    assert.equal((await run.exited).code, 1);
    const lines = run.stderr().trim().split("\n");
    assert.match(lines[0]!, /ABAS_SDK__INVALID_PROXY_CONFIG/);
    assert.match(lines[0]!, /--durability/);
    assert.match(lines[1]!, /abas-mcp-proxy --help lists every option/);
    assert.equal(lines.length, 2);
    assert.equal(run.stdout(), "");
  });

  it("refuses a queue folder another proxy owns: ABAS_SDK__ATTESTOR_QUEUE_LOCKED", async () => {
    // Given a proxy running on the queue folder
    const server = [process.execPath, "-e", "setInterval(() => {}, 1000); console.error('ready')"];
    const first = startProxy(options, server);
    await new Promise<void>((resolve) =>
      first.child.stderr.on("data", (chunk: Buffer) => chunk.includes("ready") && resolve()),
    );
    // When a second one is started on the same folder
    const second = startProxy(options, server);
    const { code } = await second.exited;
    first.child.kill("SIGTERM");
    await first.exited;
    // Then it stops, naming the proxy that owns the queue
    assert.equal(code, 1);
    assert.match(second.stderr(), new RegExp(`ABAS_SDK__ATTESTOR_QUEUE_LOCKED: .*${first.child.pid}`));
  });

  it("withholds the result of a call it cannot record: a JSON-RPC error naming ABAS_SDK__TOOL_CALL_NOT_RECORDED", async () => {
    // Given server-everything behind the proxy
    const run = startProxy(options, [process.execPath, EVERYTHING_SERVER, "stdio"]);
    run.child.stdin.write(
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}\n',
    );
    await waitForLine(run, '"id":1');
    // When a call's arguments hold text that has no UTF-8 form (a lone surrogate), which no action hash can cover
    run.child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    run.child.stdin.write(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"\\ud800"}}}\n',
    );
    const response = JSON.parse(await waitForLine(run, '"id":2')) as {
      result?: unknown;
      error?: { code: number; message: string; data: { codeName: string } };
    };
    run.child.stdin.end();
    await run.exited;
    // Then the host gets an error instead of the unrecorded result, and the proxy says why on stderr
    assert.equal(response.result, undefined);
    assert.equal(response.error?.code, -32603);
    assert.equal(response.error?.data.codeName, "ABAS_SDK__TOOL_CALL_NOT_RECORDED");
    assert.match(response.error?.message ?? "", /The call of tool echo could not be recorded/);
    assert.match(run.stderr(), /tool echo: not recorded/);
  });

  it("withholds a result canonical JSON cannot hold, and a response with neither result nor error: ABAS_SDK__TOOL_CALL_NOT_RECORDED", async () => {
    // Given a server that answers its first call with a number beyond a float's range, its second
    // with a result nested 5,000 deep, and its third with neither a result nor an error
    const oddServer = `
      const answers = ['"result":{"n":1e400}', '"result":' + "[".repeat(5000) + "]".repeat(5000), '"note":"none"'];
      let next = 0;
      require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
        const id = /"id":(\\d+)/.exec(line)[1];
        process.stdout.write('{"jsonrpc":"2.0","id":' + id + "," + answers[next++] + "}\\n");
      });`;
    const run = startProxy(options, [process.execPath, "-e", oddServer]);
    // When the host calls three tools
    for (const id of [1, 2, 3]) {
      run.child.stdin.write(
        `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"odd","arguments":{}}}\n`,
      );
    }
    const responses = await Promise.all([1, 2, 3].map((id) => waitForLine(run, `"id":${id},`)));
    run.child.stdin.end();
    await run.exited;
    // Then each gets the named error under its own id
    for (const [index, text] of responses.entries()) {
      const response = JSON.parse(text) as {
        id: number;
        result?: unknown;
        error?: { data: { codeName: string } };
      };
      assert.equal(response.id, index + 1);
      assert.equal(response.result, undefined);
      assert.equal(response.error?.data.codeName, "ABAS_SDK__TOOL_CALL_NOT_RECORDED", text.slice(0, 200));
    }
  });

  it("withholds a response no JSON-RPC 2.0 host would take, which it cannot record as an answer: ABAS_SDK__TOOL_CALL_NOT_RECORDED", async () => {
    // Given a server that answers as JSON-RPC 1.0, then with a member beside its result
    const oldServer = `
      const answers = ['{"jsonrpc":"1.0","id":ID,"result":{"content":[]}}', '{"jsonrpc":"2.0","id":ID,"result":{"content":[]},"note":"hi"}'];
      let next = 0;
      require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
        process.stdout.write(answers[next++].replace("ID", /"id":(\\d+)/.exec(line)[1]) + "\\n");
      });`;
    const run = startProxy(options, [process.execPath, "-e", oldServer]);
    for (const id of [1, 2]) {
      run.child.stdin.write(
        `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"old","arguments":{}}}\n`,
      );
    }
    const responses = await Promise.all([1, 2].map((id) => waitForLine(run, `"id":${id},`)));
    run.child.stdin.end();
    await run.exited;
    // Then the host gets the named error under each call's id, saying why
    for (const [index, text] of responses.entries()) {
      const response = JSON.parse(text) as {
        id: number;
        error?: { message: string; data: { codeName: string } };
      };
      assert.equal(response.id, index + 1);
      assert.equal(response.error?.data.codeName, "ABAS_SDK__TOOL_CALL_NOT_RECORDED");
      assert.match(
        response.error?.message ?? "",
        /the server's response: the official MCP client drops it: /,
      );
    }
  });

  it("does not forward a line of the host that is not JSON, whose call it could not record: the host gets a parse error", async () => {
    // Given a server that echoes every line it gets
    const run = startProxy(options, [process.execPath, "-e", "process.stdin.pipe(process.stdout)"]);
    // When the host sends a tools/call that is not JSON (NaN, which some JSON readers take), a
    // blank line, then a ping
    run.child.stdin.write(
      '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"pay","arguments":{"amount":NaN}}}\n\r\n',
    );
    run.child.stdin.write('{"jsonrpc":"2.0","id":6,"method":"ping"}\n');
    await waitForLine(run, '"method":"ping"');
    run.child.stdin.end();
    await run.exited;
    // Then the host got a parse error naming ABAS_SDK__TOOL_CALL_NOT_RECORDED, the server never got the
    // call (nothing echoed it), and the blank line and the ping went through
    const [refusal, blank, ping] = run.stdout().split("\n");
    const error = JSON.parse(refusal!) as {
      id: unknown;
      error: { code: number; data: { codeName: string } };
    };
    assert.deepEqual(
      [error.id, error.error.code, error.error.data.codeName],
      [null, -32700, "ABAS_SDK__TOOL_CALL_NOT_RECORDED"],
    );
    assert.equal(blank, "\r");
    assert.equal(ping, '{"jsonrpc":"2.0","id":6,"method":"ping"}');
    assert.doesNotMatch(run.stdout(), /NaN/);
    assert.match(run.stderr(), /a line from the host is not JSON \(\d+ bytes\): not forwarded/);
  });

  it("names a receipts or queue folder it cannot use, at once, without starting the server", async () => {
    const aFile = join(dir, "a-file");
    writeFileSync(aFile, "");
    const server = [process.execPath, "-e", "console.log('started')"];
    // (the last of a repeated flag counts)
    const withFolders = (receiptsDir: string, queueDir = join(dir, "queue-folders")) => [
      ...options,
      "--queue-dir",
      queueDir,
      "--receipts-dir",
      receiptsDir,
    ];
    const cases: Array<[string[], RegExp]> = [
      [
        withFolders(aFile),
        /ABAS_SDK__INVALID_PROXY_CONFIG: .*--receipts-dir \(ABAS_RECEIPTS_DIR\) .*a-file cannot be used: EEXIST/,
      ],
      [
        withFolders(join(aFile, "receipts")),
        /ABAS_SDK__INVALID_PROXY_CONFIG: .*--receipts-dir .* cannot be used: ENOTDIR/,
      ],
      // (a folder Node's own recursive mkdir would retry for ever)
      [
        withFolders("/proc/1/abas-receipts"),
        /ABAS_SDK__INVALID_PROXY_CONFIG: .*--receipts-dir .*\/proc\/1\/abas-receipts cannot be used/,
      ],
      [
        withFolders(join(dir, "receipts-fine"), aFile),
        /ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE: .*a-file cannot be used: it is not a folder/,
      ],
    ];
    for (const [argv, message] of cases) {
      const run = startProxy(argv, server);
      assert.equal((await run.exited).code, 1, argv.join(" "));
      assert.match(run.stderr(), message);
      assert.doesNotMatch(run.stderr(), /^\s+at /m, "no stack trace");
      assert.equal(run.stdout(), "");
    }
    // And folders reached through symbolic links are used as the folders they name
    mkdirSync(join(dir, "real-receipts"));
    mkdirSync(join(dir, "real-queue"));
    symlinkSync(join(dir, "real-receipts"), join(dir, "linked-receipts"));
    symlinkSync(join(dir, "real-queue"), join(dir, "linked-queue"));
    const linked = startProxy(withFolders(join(dir, "linked-receipts"), join(dir, "linked-queue")), server);
    linked.child.stdin.end();
    assert.equal((await linked.exited).code, 0, linked.stderr());
    assert.equal(linked.stdout(), "started\n");
  });

  it("in a batch of responses, replaces only the one of the call it cannot record, keeping the others' bytes", async () => {
    // Given a server that answers a JSON-RPC batch with a batch (as the 2025-03-26 protocol
    // allows), spaced as no serializer would, each response's id copied from its request's text
    const batchServer = `
      require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
        const ids = [...line.matchAll(/"id":(\\d+)/g)].map((match) => match[1]);
        const answers = ids.map((id) => '{ "jsonrpc" : "2.0", "id" : ' + id + ', "result" : { "content" : [ ] } }');
        process.stdout.write("[ " + answers.join(" , ") + " ]\\n");
      });`;
    const run = startProxy(options, [process.execPath, "-e", batchServer]);
    // When the host calls three tools in one batch, the second with text no action hash can cover,
    // the last reusing the id of the second
    run.child.stdin.write(
      '[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"fine"}}},' +
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"\\ud800"}}},' +
        '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"also fine"}}}]\n',
    );
    const line = await waitForLine(run, "ABAS_SDK__TOOL_CALL_NOT_RECORDED");
    run.child.stdin.end();
    await run.exited;
    // Then the first and last responses come through byte for byte, the second is the named error
    const [first, second, third] = line.slice(2, -2).split(" , ");
    assert.equal(first, '{ "jsonrpc" : "2.0", "id" : 1, "result" : { "content" : [ ] } }');
    assert.equal(third, '{ "jsonrpc" : "2.0", "id" : 2, "result" : { "content" : [ ] } }');
    const error = JSON.parse(second!) as {
      id: number;
      result?: unknown;
      error?: { data: { codeName: string } };
    };
    assert.equal(error.id, 2);
    assert.equal(error.result, undefined);
    assert.equal(error.error?.data.codeName, "ABAS_SDK__TOOL_CALL_NOT_RECORDED");
    assert.match(run.stderr(), /reused the id 2/);
  });

  it("records a response the server ends its output with, without a newline, before forwarding it", async () => {
    // Given a server that answers one call without a newline and exits
    const lastWords = `
      require("node:readline").createInterface({ input: process.stdin }).once("line", (line) => {
        const { id } = JSON.parse(line);
        process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result: { content: [] } }), () => process.exit(0));
      });`;
    const queueDir = join(dir, "queue-last-words");
    const run = startProxy([...options, "--queue-dir", queueDir], [process.execPath, "-e", lastWords]);
    // When the host calls a tool, also without a newline, and closes its end
    run.child.stdin.end(
      '{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"echo","arguments":{"message":"bye"}}}',
    );
    const { code } = await run.exited;
    // Then the host got the response as sent, and the call is in the queue folder
    assert.equal(code, 0, run.stderr());
    assert.equal(run.stdout(), '{"jsonrpc":"2.0","id":"last","result":{"content":[]}}');
    assert.match(readFileSync(join(queueDir, "calls.jsonl"), "utf8"), /"callId":"last"/);
  });

  it("keeps forwarding and recording after a tools/call whose name is not text (an object without a usable toString)", async () => {
    // Given a server that answers every request with an empty result
    const answerAll = `
      require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
        const { id } = JSON.parse(line);
        process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result: { content: [] } }) + "\\n");
      });`;
    const queueDir = join(dir, "queue-odd-name");
    const run = startProxy([...options, "--queue-dir", queueDir], [process.execPath, "-e", answerAll]);
    // When the host calls a tool named by such an object, then another tool
    const odd =
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":{"toString":1,"valueOf":{}},"arguments":{}}}\n';
    run.child.stdin.write(odd);
    await waitForLine(run, '"id":1');
    run.child.stdin.end(
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"after"}}}\n',
    );
    const { code } = await run.exited;
    // Then both were answered and both calls are recorded, the first under its name's JSON text
    assert.equal(code, 0, run.stderr());
    assert.deepEqual(
      run
        .stdout()
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).id),
      [1, 2],
    );
    const journal = readFileSync(join(queueDir, "calls.jsonl"), "utf8");
    assert.match(journal, /"tool":"\{\\"toString\\":1,\\"valueOf\\":\{\}\}"/);
    assert.match(journal, /"tool":"echo"/);
  });

  it("takes options from flags first, then the environment, then defaults", () => {
    const parsed = parseProxyConfig(["--durability", "fsync", "--", "npx", "-y", "server", "--flag"], {
      ABAS_DURABILITY: "write",
      ABAS_PRIVACY_MODE: "true",
      ABAS_RPC_URL: "",
    });
    assert.equal(parsed.help, false);
    if (parsed.help) return;
    assert.equal(parsed.config.durability, "fsync");
    assert.equal(parsed.config.privacyMode, true);
    assert.equal(parsed.config.rpcUrl, "http://127.0.0.1:8899");
    assert.equal(parsed.config.maxBatchDelayMs, 2000);
    assert.equal(parsed.config.maxQueuedCalls, 100_000);
    assert.equal(parsed.config.command, "npx");
    assert.deepEqual(parsed.config.args, ["-y", "server", "--flag"]);
  });
});
