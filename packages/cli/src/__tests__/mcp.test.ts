/**
 * `abas mcp tools|call` on a host's `mcp-config.json` written as docs/attest-every-action.md writes
 * it: the real `abas-mcp-proxy` in front of the reference filesystem server, a real `abas-ledger`.
 * When the command returns, the call's receipt is in the receipts folder and verifies. Each error a
 * user can hit exits with its code and names the problem.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { spawnLedgerProcess, type LedgerProcess } from "@abas/ledger";

import { abasBin, abasIn, registerAgentWithAbas, tsx } from "./support/abas-process.js";

const here = fileURLToPath(new URL(".", import.meta.url));
const proxyBin = fileURLToPath(new URL("./bin.ts", import.meta.resolve("@abas/mcp-proxy")));
const filesystemServer = resolve(here, "../../../../node_modules/.bin/mcp-server-filesystem");
const everythingServer = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-everything/dist/index.js",
);
const scriptedServer = (mode: string) => ({
  command: process.execPath,
  args: [resolve(here, "support/scripted-mcp-server.mjs"), mode],
});

const work = mkdtempSync(join(tmpdir(), "abas-cli-mcp-"));
const root = join(work, "shared");
const receiptsDir = join(work, "abas-receipts");
let ledger: LedgerProcess;
let env: NodeJS.ProcessEnv;
const cli = abasIn(work, () => env);
const { abas, abasJson } = cli;

/** A config file in the work folder holding these servers. */
function config(name: string, servers: unknown): string {
  const path = join(work, name);
  writeFileSync(path, typeof servers === "string" ? servers : JSON.stringify({ mcpServers: servers }));
  return path;
}

before(async () => {
  ledger = await spawnLedgerProcess({ dataDir: join(work, "ledger") });
  env = { ...process.env, RPC_URL: ledger.rpcUrl };
  delete env.PROGRAM_ID;
  // The operator and agent of the docs' step 2, made with the CLI
  await registerAgentWithAbas(cli, ledger.rpcUrl);
  mkdirSync(root);
  writeFileSync(join(root, "hello.txt"), "hello\n");
  // The docs' step 3, with this test's ledger and a queue folder of its own
  config("mcp-config.json", {
    filesystem: {
      command: tsx,
      args: [proxyBin, "--", filesystemServer, root],
      env: {
        NODE_OPTIONS: "--conditions=abas-source",
        ABAS_AGENT_KEYPAIR: join(work, "agent.json"),
        ABAS_OPERATOR_KEYPAIR: join(work, "operator.json"),
        ABAS_RECEIPTS_DIR: receiptsDir,
        ABAS_RPC_URL: ledger.rpcUrl,
        ABAS_QUEUE_DIR: join(work, "queue"),
      },
    },
  });
});

after(async () => {
  await ledger?.stop();
  rmSync(work, { recursive: true, force: true });
});

type Listed = { receipts: Array<{ action: string; outcome: string }> };

describe("abas mcp, with abas-mcp-proxy in front of the filesystem server", () => {
  test("lists the server's tools as a host starts it", async () => {
    const listed = await abas(["mcp", "tools", "mcp-config.json", "filesystem"]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^TOOL\s+DESCRIPTION$/m);
    assert.match(listed.stdout, /^list_directory\s+\S/m);
    const { tools } = await abasJson<{ tools: Array<{ name: string; inputSchema: object }> }>([
      "mcp",
      "tools",
      "mcp-config.json",
      "filesystem",
    ]);
    assert.ok(tools.some((tool) => tool.name === "read_text_file"));
    // Listing calls no tool: nothing to receipt
    assert.deepEqual((await abasJson<Listed>(["receipts", "list", receiptsDir])).receipts, []);
  });

  test("calls a tool; when the command returns, the call's receipt is saved and verifies", async () => {
    const called = await abas([
      "mcp",
      "call",
      "mcp-config.json",
      "filesystem",
      "list_directory",
      "--args",
      JSON.stringify({ path: root }),
    ]);
    assert.equal(called.code, 0, called.stderr);
    assert.equal(called.stdout, "[FILE] hello.txt\n");
    // The proxy's own lines reach stderr, as they reach a host's log
    assert.match(called.stderr, /abas-mcp-proxy/);
    const { receipts } = await abasJson<Listed>(["receipts", "list", receiptsDir]);
    assert.deepEqual(
      receipts.map(({ action, outcome }) => [action, outcome]),
      [["list_directory", "ok"]],
    );
    const verified = await abas(["receipts", "verify", receiptsDir]);
    assert.equal(verified.code, 0, verified.stderr);
    assert.equal(verified.stdout, "1/1 receipts valid\n");
  });

  test("a tool's error: exit code 1 with its text, the call recorded all the same; --json gives the whole result", async () => {
    const outside = await abas([
      "mcp",
      "call",
      "mcp-config.json",
      "filesystem",
      "read_text_file",
      "--args",
      JSON.stringify({ path: "/etc/hostname" }),
    ]);
    assert.equal(outside.code, 1, outside.stderr);
    assert.match(
      outside.stderr,
      /abas mcp: the tool "read_text_file" reported an error: .*outside allowed directories/,
    );
    const json = await abasJson<{ result: { content: Array<{ type: string; text: string }> } }>([
      "mcp",
      "call",
      "mcp-config.json",
      "filesystem",
      "read_text_file",
      "--args",
      JSON.stringify({ path: join(root, "hello.txt") }),
    ]);
    assert.deepEqual(json.result.content, [{ type: "text", text: "hello\n" }]);
    const { receipts } = await abasJson<Listed>(["receipts", "list", receiptsDir]);
    assert.deepEqual(receipts.map(({ action, outcome }) => [action, outcome]).sort(), [
      ["list_directory", "ok"],
      ["read_text_file", "error"],
      ["read_text_file", "ok"],
    ]);
  });
});

describe("abas mcp with a server slow to exit", () => {
  test("prints the result at once, says it waits for the server, and returns once the server has exited", async () => {
    // Given a server that, once its stdin is closed, keeps running until this test lets it go
    const marker = join(work, "let-it-go");
    const file = config("slow-exit.json", {
      slow: {
        command: "sh",
        args: [
          "-c",
          `"${process.execPath}" "${everythingServer}" stdio; until [ -e "${marker}" ]; do sleep 0.05; done`,
        ],
      },
    });
    const child = spawn(
      tsx,
      [abasBin, "mcp", "call", file, "slow", "echo", "--args", '{"message":"early"}'],
      {
        cwd: work,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const output = { stdout: "", stderr: "" };
    const checks: Array<() => void> = [];
    for (const stream of ["stdout", "stderr"] as const) {
      child[stream].on("data", (chunk: Buffer) => {
        output[stream] += chunk.toString();
        for (const check of checks) check();
      });
    }
    const exited = new Promise<number | null>((resolveExit) => child.on("close", resolveExit));
    /** Resolves once `stream` has shown `pattern`. */
    const seen = (pattern: RegExp, stream: "stdout" | "stderr") =>
      new Promise<void>((resolveSeen) =>
        checks.push(() => {
          if (pattern.test(output[stream])) resolveSeen();
        }),
      );
    // When the result is printed and the command says it waits for the server
    await Promise.all([
      seen(/^Echo: early$/m, "stdout"),
      seen(/abas mcp: waiting up to 30 s for the server "slow" to exit/, "stderr"),
    ]);
    // Then it has not returned while the server runs, and returns 0 once it has exited
    assert.equal(child.exitCode, null);
    writeFileSync(marker, "");
    assert.equal(await exited, 0, output.stderr);
    assert.equal(output.stdout, "Echo: early\n");
  });
});

describe("abas mcp: what the user gets wrong", () => {
  const dies = { command: "sh", args: ["-c", "echo oops >&2; exit 3"] };

  for (const [what, args, message] of [
    ["no subcommand", ["mcp"], /abas mcp: mcp needs a subcommand: tools or call/],
    [
      "too few arguments",
      ["mcp", "call", "mcp-config.json", "filesystem"],
      /mcp call needs <mcp-config.json> <server> <tool>/,
    ],
    [
      "a config that is not there",
      ["mcp", "tools", "nowhere.json", "x"],
      /cannot read nowhere\.json: ENOENT/,
    ],
    [
      "a config that is not JSON",
      ["mcp", "tools", config("not-json.json", "{"), "x"],
      /not-json\.json is not JSON: /,
    ],
    [
      "a config without mcpServers",
      ["mcp", "tools", config("empty.json", "{}"), "x"],
      /empty\.json has no "mcpServers" object; a host's MCP configuration reads/,
    ],
    [
      "a server the config does not name",
      ["mcp", "tools", "mcp-config.json", "other"],
      /mcp-config\.json has no server "other"; its servers: filesystem$/m,
    ],
    [
      "a server without a command",
      ["mcp", "tools", config("no-command.json", { x: { args: [] } }), "x"],
      /server "x" in .*no-command\.json: "command" must be a non-empty string/,
    ],
    [
      "args that are not strings",
      ["mcp", "tools", config("bad-args.json", { x: { command: "sh", args: [1] } }), "x"],
      /server "x" in .*bad-args\.json: "args" must be an array of strings/,
    ],
    [
      "env that is not strings",
      ["mcp", "tools", config("bad-env.json", { x: { command: "sh", env: { A: 1 } } }), "x"],
      /server "x" in .*bad-env\.json: "env" must be an object of strings/,
    ],
    [
      "a ledger option, which the server's entry sets",
      ["mcp", "call", "mcp-config.json", "filesystem", "list_directory", "--rpc-url", "http://127.0.0.1:9"],
      /--rpc-url does not apply to abas mcp: the server's settings are in its entry of the config/,
    ],
    [
      "a cwd that is not a folder",
      ["mcp", "tools", config("bad-cwd.json", { x: { command: "sh", cwd: join(work, "nowhere") } }), "x"],
      /server "x" in .*bad-cwd\.json: "cwd" .*nowhere is not a folder/,
    ],
    [
      "--args that are not JSON",
      ["mcp", "call", "mcp-config.json", "filesystem", "list_directory", "--args", "{path"],
      /--args is not JSON: /,
    ],
    [
      "--args that are not an object",
      ["mcp", "call", "mcp-config.json", "filesystem", "list_directory", "--args", "[1]"],
      /--args must be a JSON object, such as '\{"path":"\/tmp"\}'/,
    ],
  ] as const) {
    test(`${what}: exit code 2, named before any server starts`, async () => {
      const result = await abas(args);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, "");
    });
  }

  test("a server that cannot start: exit code 1, with the system's reason", async () => {
    const file = config("missing.json", { missing: { command: "/no/such/server" } });
    const result = await abas(["mcp", "tools", file, "missing"]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      /abas mcp: cannot start the server "missing" \(\/no\/such\/server\): spawn \/no\/such\/server ENOENT/,
    );
  });

  for (const [what, mode, args, message] of [
    [
      "answers tools/list with the same cursor again and again",
      "cursor-loop",
      ["tools"],
      /abas mcp: the server "scripted" answered tools\/list with the cursor "again" again/,
    ],
    [
      "answers with a line that is not a JSON-RPC message, then exits",
      "bad-answer",
      ["call", "t"],
      /abas mcp: the server "scripted" exited with exit code 5 before answering \(it had written a line that is not a JSON-RPC message: \{"jsonrpc":"2\.0","id":1,"result":null\}\); its stderr is above/,
    ],
    [
      "answers with a line over 10 MB",
      "huge-answer",
      ["call", "t"],
      /abas mcp: the server "scripted" failed: MCP error -32000: Connection closed \(it had written a line over 10 MB, which the MCP client does not read\)/,
    ],
  ] as const) {
    test(`a server that ${what}: exit code 1, at once, naming it`, async () => {
      const file = config(`${mode}.json`, { scripted: scriptedServer(mode) });
      const [subcommand, ...rest] = args;
      const result = await abas(["mcp", subcommand, file, "scripted", ...rest]);
      assert.equal(result.code, 1, result.stderr);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, "");
    });
  }

  test("a server whose child keeps its stdout open after it exits: the command returns all the same", async () => {
    // Given a server that leaves a process of its own running, holding the server's stdout
    const pidFile = join(work, "held-open.pid");
    const file = config("held-open.json", {
      held: {
        command: "sh",
        // (the command's stderr not held: this test waits for the command's own pipes to close)
        args: [
          "-c",
          `sleep 300 2>/dev/null & echo $! > "${pidFile}"; exec "${process.execPath}" "${everythingServer}" stdio`,
        ],
      },
    });
    try {
      // Then the call returns once the server has exited
      const result = await abas(["mcp", "call", file, "held", "echo", "--args", '{"message":"still"}']);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "Echo: still\n");
    } finally {
      process.kill(Number(readFileSync(pidFile, "utf8")));
    }
  });

  test("a server that exits before answering: exit code 1 with its exit code, its stderr passed on", async () => {
    const file = config("dies.json", { dies });
    const result = await abas(["mcp", "call", file, "dies", "anything"]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^oops$/m);
    assert.match(result.stderr, /abas mcp: the server "dies" exited with exit code 3 before answering/);
    const json = await abas(["mcp", "call", file, "dies", "anything", "--json"]);
    assert.equal(json.code, 1);
    assert.deepEqual(JSON.parse(json.stdout), {
      ok: false,
      error: {
        message: 'the server "dies" exited with exit code 3 before answering; its stderr is above',
        details: { exitCode: 3, signal: null },
      },
    });
  });
});
