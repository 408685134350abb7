/**
 * The `abas` command as a user runs it: a child process per command, against the whole service
 * (local ledger, indexer, REST API) started in this process on free ports.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { loadServiceConfig, startService, type RunningService } from "@abas/service";
import { address, createSolanaRpc } from "@solana/kit";
import { refusedPort } from "@abas/test-support";

import { abasIn } from "./support/abas-process.js";

const work = mkdtempSync(join(tmpdir(), "abas-cli-"));
const dataDir = join(work, "data");
let service: RunningService;
let env: NodeJS.ProcessEnv;

const { abas, abasJson } = abasIn(work, () => env);

/** A new key file in the work folder, its address, funded when asked. */
async function newKey(name: string, funded = false): Promise<{ path: string; address: string }> {
  const { address: keyAddress, path } = await abasJson<{ address: string; path: string }>([
    "keygen",
    "--out",
    `${name}.json`,
  ]);
  if (funded) await abasJson(["airdrop", `${name}.json`, "--sol", "10"]);
  return { path, address: keyAddress };
}

/**
 * A fault injected on purpose: a node at a URL of its own that answers each request's JSON body
 * with the JSON `answer` makes of it, while `run` runs.
 */
async function withJsonNode(
  answer: (body: string) => unknown,
  run: (url: string) => Promise<void>,
): Promise<void> {
  const node = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      response.setHeader("content-type", "application/json");
      response.end(JSON.stringify(answer(body)));
    });
  });
  await new Promise<void>((resolve) => node.listen(0, "127.0.0.1", resolve));
  try {
    await run(`http://127.0.0.1:${(node.address() as AddressInfo).port}`);
  } finally {
    node.close();
  }
}

before(async () => {
  service = await startService(
    loadServiceConfig({ DATA_DIR: dataDir, PORT: "0", LEDGER_RPC_PORT: "0", LEDGER_WS_PORT: "0" }),
  );
  env = { ...process.env, RPC_URL: service.rpcUrl, ABAS_API_URL: service.apiUrl, DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  delete env.PROGRAM_ID;
});

after(async () => {
  await service?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("keygen", () => {
  test("writes a Solana CLI key file, prints its address, and never overwrites it", async () => {
    // When
    const created = await abas(["keygen", "--out", "k1.json"]);
    // Then
    assert.equal(created.code, 0, created.stderr);
    const bytes = JSON.parse(readFileSync(join(work, "k1.json"), "utf8")) as number[];
    assert.equal(bytes.length, 64);
    assert.match(created.stdout, /^[1-9A-HJ-NP-Za-km-z]{32,44}\n/);
    const again = await abas(["keygen", "--out", "k1.json"]);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /k1\.json exists already; keygen never overwrites a key/);
  });
});

describe("airdrop", () => {
  test("funds a key file's account or an address from the faucet and prints the balance once confirmed", async () => {
    // Given a new key
    const key = await newKey("airdrop-key");
    // When SOL is asked for its key file, then for its address
    const first = await abas(["airdrop", "airdrop-key.json"]);
    const second = await abasJson<Record<string, unknown>>(["airdrop", key.address, "--sol", "0.25"]);
    // Then the default of 2 SOL, then a quarter more, are confirmed on the ledger
    assert.equal(first.code, 0, first.stderr);
    assert.match(
      first.stdout,
      new RegExp(
        `^Airdropped 2 SOL to ${key.address}; balance 2 SOL\n  transaction  [1-9A-HJ-NP-Za-km-z]{64,88}\n$`,
      ),
    );
    assert.deepEqual(
      { ...second, signature: typeof second.signature },
      { address: key.address, lamports: 250_000_000, balanceLamports: 2_250_000_000, signature: "string" },
    );
    const rpc = createSolanaRpc(service.rpcUrl);
    assert.equal(
      (await rpc.getBalance(address(key.address), { commitment: "confirmed" }).send()).value,
      2_250_000_000n,
    );
  });

  test("an amount, an account or arguments that are not right: exit 2, nothing asked", async () => {
    const cases: [readonly string[], RegExp][] = [
      [["airdrop"], /^abas airdrop: missing <address\|keypair>: the account to fund\n/],
      [["airdrop", "a", "b"], /^abas airdrop: unexpected argument "b"\n/],
      [
        ["airdrop", "no-such-key.json"],
        /^abas airdrop: <address\|keypair>: "no-such-key\.json" is neither a key file nor a base58 account address\n/,
      ],
      ...["0", "-1", "1e3", "0.0000000001", "abc", ""].map((amount): [readonly string[], RegExp] => [
        ["airdrop", "11111111111111111111111111111111", `--sol=${amount}`],
        new RegExp(
          `^abas airdrop: --sol "${amount.replaceAll(".", "\\.")}" is not an amount of SOL greater than 0`,
        ),
      ]),
      [
        ["airdrop", "11111111111111111111111111111111", "--sol", "9007200"],
        /^abas airdrop: --sol "9007200" is more than one request can carry \(9007199\.254740991 SOL\)/,
      ],
    ];
    for (const [args, message] of cases) {
      // An unreachable ledger: nothing is asked before the arguments are checked
      const result = await abas(args, { env: { RPC_URL: "http://127.0.0.1:1" } });
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, message, args.join(" "));
    }
  });

  test("a faucet that refuses says so, with what to do instead, exit 1", async () => {
    // The faucet's transfer cannot credit the System Program
    const result = await abas(["airdrop", "11111111111111111111111111111111"]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      /^abas airdrop: the ledger at http:\/\/127\.0\.0\.1:\d+ refused the airdrop of 2 SOL: .*airdrop request failed: the faucet cannot send to 11111111111111111111111111111111/,
    );
    assert.match(
      result.stderr,
      /\n {2}fix: a ledger without a faucet \(mainnet\) cannot airdrop: transfer SOL/,
    );
  });

  test("a transfer that lands and fails is named with its error, exit 1", async () => {
    // A fault injected on purpose: a node whose faucet transfer fails once it lands
    const signature = "1".repeat(64);
    await withJsonNode(
      (body) => {
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        const result =
          method === "requestAirdrop"
            ? signature
            : {
                context: { slot: 9 },
                value: [
                  {
                    slot: 9,
                    confirmations: 0,
                    err: { InstructionError: [0, { Custom: 1 }] },
                    confirmationStatus: "confirmed",
                  },
                ],
              };
        return { jsonrpc: "2.0", id, result };
      },
      async (url) => {
        const result = await abas(["airdrop", "11111111111111111111111111111111", "--rpc-url", url]);
        assert.equal(result.code, 1, result.stderr);
        assert.equal(
          result.stderr,
          `abas airdrop: the airdrop's transaction ${signature} failed: {"InstructionError":[0,{"Custom":1}]}\n`,
        );
      },
    );
  });

  test("an unreachable ledger is named with the fix, exit 1", async () => {
    const result = await abas([
      "airdrop",
      "11111111111111111111111111111111",
      "--rpc-url",
      "http://127.0.0.1:1",
    ]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /^abas airdrop: cannot reach the ledger at http:\/\/127\.0\.0\.1:1\n {2}fix: is the ledger running/,
    );
  });

  test("an operator without SOL is told to airdrop to it", async () => {
    // Given an operator that was never funded
    await newKey("poor-operator");
    await newKey("poor-agent");
    // When it registers an agent
    const result = await abas([
      "agent",
      "register",
      "--operator",
      "poor-operator.json",
      "--agent",
      "poor-agent.json",
    ]);
    // Then
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      /\[ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE 2001\]\n {2}fix: fund the operator: abas airdrop <operator keypair>/,
    );
  });
});

describe("a program ID the agent or the program is not found under", () => {
  test("with no program behind it is named with the fix, exit 1", async () => {
    // Given a funded operator, and a program ID nothing is deployed at
    await newKey("elsewhere-operator", true);
    await newKey("elsewhere-agent");
    const programId = "8qbHbw2BbbTHBW1sbeqakYXVKRQM8Ne7pLK7m6CVfeR";
    // When it registers an agent there
    const result = await abas(
      ["agent", "register", "--operator", "elsewhere-operator.json", "--agent", "elsewhere-agent.json"],
      { env: { PROGRAM_ID: programId } },
    );
    // Then
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      new RegExp(
        `^abas agent: The transaction failed: InvalidProgramForExecution \\[ABAS_RUNTIME__TRANSACTION_FAILED 2006\\]\n` +
          `  fix: no program is deployed at ${programId} on http://127\\.0\\.0\\.1:\\d+: check --program-id \\(PROGRAM_ID\\)`,
      ),
    );
  });

  test("an agent not found under a program ID that was set says to check it", async () => {
    const agent = await newKey("elsewhere-agent-2");
    const programId = "8qbHbw2BbbTHBW1sbeqakYXVKRQM8Ne7pLK7m6CVfeR";
    const result = await abas(["agent", "show", agent.address], { env: { PROGRAM_ID: programId } });
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      new RegExp(
        `\\[ABAS_RUNTIME__AGENT_NOT_REGISTERED 2201\\]\n  fix: register it first: abas agent register --operator <keypair> --agent <keypair>; ` +
          `or, if it is registered, check that --program-id \\(PROGRAM_ID\\) ${programId} is the program it was registered with\n$`,
      ),
    );
  });
});

describe("agents, attestations and receipts", () => {
  let operator: { path: string; address: string };
  let agent: { path: string; address: string };

  before(async () => {
    operator = await newKey("operator", true);
    agent = await newKey("agent");
  });

  test("agent register, show and update", async () => {
    const registered = await abas([
      "agent",
      "register",
      "--operator",
      operator.path,
      "--agent",
      agent.path,
      "--types",
      "ToolCall,Decision",
    ]);
    assert.equal(registered.code, 0, registered.stderr);
    assert.match(registered.stdout, new RegExp(`Agent ${agent.address} registered`));

    const shown = await abasJson<{ status: string; allowedActionTypes: string[]; operator: string }>([
      "agent",
      "show",
      agent.address,
    ]);
    assert.equal(shown.status, "active");
    assert.deepEqual(shown.allowedActionTypes, ["ToolCall", "Decision"]);
    assert.equal(shown.operator, operator.address);

    // By address: only the operator signs.
    const updated = await abasJson<{ status: string; allowedActionTypes: string[] }>([
      "agent",
      "update",
      "--operator",
      operator.path,
      "--agent",
      agent.address,
      "--status",
      "active",
      "--types",
      "ToolCall,Decision,ModelInvocation",
    ]);
    assert.deepEqual(updated.allowedActionTypes, ["ToolCall", "Decision", "ModelInvocation"]);
  });

  test("attest a payload, save the receipt, verify it against the ledger", async () => {
    const attested = await abas([
      "attest",
      "--operator",
      operator.path,
      "--agent",
      agent.path,
      "--type",
      "ToolCall",
      "--payload",
      '{"tool":"search"}',
      "--receipt-out",
      "receipt.json",
    ]);
    assert.equal(attested.code, 0, attested.stderr);
    const receipt = JSON.parse(readFileSync(join(work, "receipt.json"), "utf8")) as Record<string, unknown>;
    assert.equal(receipt.privacyMode, false);
    assert.equal(receipt.agent, agent.address);

    const verified = await abas(["verify", "receipt.json"]);
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /receipt: VALID/);

    const found = await abasJson<{ found: boolean }>([
      "verify",
      "--hash",
      receipt.actionHash as string,
      "--agent",
      agent.address,
    ]);
    assert.equal(found.found, true);
  });

  test("a receipt file that cannot be made fails before the action is sent, and an existing one is never overwritten", async () => {
    const payload = `{"tool":"unsaved-${Date.now()}"}`;
    const attest = (receiptOut: string) =>
      abas([
        "attest",
        "--operator",
        operator.path,
        "--agent",
        agent.path,
        "--type",
        "ToolCall",
        "--payload",
        payload,
        "--receipt-out",
        receiptOut,
      ]);
    const inProc = await attest("/proc/receipt.json");
    assert.equal(inProc.code, 2, inProc.stderr);
    assert.match(inProc.stderr, /--receipt-out: cannot create \/proc\/receipt\.json: ENOENT/);
    const existing = await attest("receipt.json");
    assert.equal(existing.code, 2, existing.stderr);
    assert.match(existing.stderr, /receipt\.json exists already; receipts are never overwritten/);
    // Nothing was attested: the same action can still be attested, once
    const actionHash = createHash("sha256").update(payload).digest("hex");
    const notFound = await abas(["verify", "--hash", actionHash, "--agent", agent.address]);
    assert.equal(notFound.code, 1, notFound.stderr);
    assert.match(
      notFound.stderr,
      /no single attestation of .*; batches are not searched: check a batch item with its receipt$/m,
    );
    const saved = await attest("unsaved.json");
    assert.equal(saved.code, 0, saved.stderr);
    assert.equal(
      (JSON.parse(readFileSync(join(work, "unsaved.json"), "utf8")) as { actionHash: string }).actionHash,
      actionHash,
    );
  });

  test("a private attestation says its receipt carries the salt, and verifies from stdin", async () => {
    const attested = await abas([
      "attest",
      "--operator",
      operator.path,
      "--agent",
      agent.path,
      "--type",
      "Decision",
      "--payload",
      '{"b":2,"a":1}',
      "--canonical",
      "--private",
    ]);
    assert.equal(attested.code, 0, attested.stderr);
    assert.match(attested.stdout, /privacy-mode receipt: it carries the salt/);
    const receipt = JSON.parse(attested.stdout.slice(attested.stdout.indexOf("Receipt:\n") + 9)) as {
      salt: string;
      actionHash: string;
    };
    assert.match(receipt.salt, /^[0-9a-f]{64}$/);

    const verified = await abas(["verify", "-", "--json"], { input: JSON.stringify(receipt) });
    assert.equal(verified.code, 0, verified.stderr);
    assert.equal((JSON.parse(verified.stdout) as { valid: boolean }).valid, true);

    // Without the salt the commitment cannot be found; with it, it can.
    const withoutSalt = await abas(["verify", "--hash", receipt.actionHash, "--agent", agent.address]);
    assert.equal(withoutSalt.code, 1);
    assert.match(withoutSalt.stderr, /no single attestation of .* only with its --salt/);
    const withSalt = await abas([
      "verify",
      "--hash",
      receipt.actionHash,
      "--salt",
      receipt.salt,
      "--agent",
      agent.address,
    ]);
    assert.equal(withSalt.code, 0, withSalt.stderr);
  });

  test("a tampered receipt is invalid: exit 1 and the failed checks", async () => {
    const receipt = JSON.parse(readFileSync(join(work, "receipt.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(work, "tampered.json"), JSON.stringify({ ...receipt, actionType: "Decision" }));
    const verified = await abas(["verify", "tampered.json"]);
    assert.equal(verified.code, 1);
    assert.match(verified.stdout, /receipt: INVALID/);
    assert.match(verified.stderr, /abas verify: \d+ checks? failed: .*agentSignature/);
  });

  test("a receipt of another program than the one abas trusts (--program-id) is invalid: the program check", async () => {
    const other = "BPFLoaderUpgradeab1e11111111111111111111111";
    const verified = await abas(["verify", "receipt.json", "--program-id", other]);
    assert.equal(verified.code, 1);
    assert.match(verified.stdout, /receipt: INVALID/);
    assert.match(verified.stderr, /abas verify: 1 check failed: program/);
    assert.match(
      verified.stdout,
      new RegExp(`program .*not of ${other}, the ABAS program this verifier trusts`),
    );
  });

  test("batch: 150 lines in two batches, receipts written and verifiable", async () => {
    const lines = Array.from({ length: 150 }, (_, index) =>
      JSON.stringify(
        index % 3 === 0
          ? { actionType: "ToolCall", payload: { step: index }, privacyMode: index % 2 === 0 }
          : { actionType: "Decision", payload: `decision ${index}` },
      ),
    );
    writeFileSync(join(work, "actions.jsonl"), `${lines.join("\n")}\n`);
    const result = await abas([
      "batch",
      "--operator",
      operator.path,
      "--agent",
      agent.path,
      "--receipts-out",
      "receipts.jsonl",
      "actions.jsonl",
      "--json",
    ]);
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout) as { itemCount: number; batches: { itemCount: number }[] };
    assert.equal(summary.itemCount, 150);
    assert.deepEqual(
      summary.batches.map((batch) => batch.itemCount),
      [100, 50],
    );
    // Not a terminal: plain progress lines on stderr, over root commits and leaves.
    assert.match(result.stderr, /batch: 1\/152, batch 1\/2: root recorded/);
    assert.match(result.stderr, /batch: 152\/152, batch 2\/2: 50\/50 leaves published/);
    const receipts = readFileSync(join(work, "receipts.jsonl"), "utf8").trim().split("\n");
    assert.equal(receipts.length, 150);

    writeFileSync(join(work, "item.json"), receipts[120]!);
    const verified = await abas(["verify", "item.json"]);
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /receipt: VALID \(batch-item\)/);
  });

  test("a suspended agent cannot attest: the program's error code and name", async () => {
    const suspended = await abas([
      "agent",
      "update",
      "--operator",
      operator.path,
      "--agent",
      agent.path,
      "--status",
      "suspended",
    ]);
    assert.equal(suspended.code, 0, suspended.stderr);
    const refused = await abas([
      "attest",
      "--operator",
      operator.path,
      "--agent",
      agent.path,
      "--type",
      "ToolCall",
      "--payload",
      "x",
    ]);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /^abas attest: The agent is suspended \[ABAS_PROGRAM__AGENT_SUSPENDED 1202, program error AgentSuspended\]\n {2}fix: reactivate it first/,
    );
    const asJson = await abas([
      "attest",
      "--operator",
      operator.path,
      "--agent",
      agent.path,
      "--type",
      "ToolCall",
      "--payload",
      "x",
      "--json",
    ]);
    assert.equal(asJson.code, 1);
    const { error } = JSON.parse(asJson.stdout) as { error: { code: number; programErrorName: string } };
    assert.equal(error.code, 1202);
    assert.equal(error.programErrorName, "AgentSuspended");
  });

  test("an unknown agent", async () => {
    const stranger = await newKey("stranger");
    const shown = await abas(["agent", "show", stranger.address]);
    assert.equal(shown.code, 1);
    assert.match(
      shown.stderr,
      new RegExp(
        `Agent ${stranger.address} is not registered with this program \\[ABAS_RUNTIME__AGENT_NOT_REGISTERED 2201\\]\\n  fix: register it first`,
      ),
    );
    const attested = await abas([
      "attest",
      "--operator",
      operator.path,
      "--agent",
      stranger.path,
      "--type",
      "ToolCall",
      "--payload",
      "x",
    ]);
    assert.equal(attested.code, 1);
    assert.match(attested.stderr, /\[ABAS_RUNTIME__AGENT_NOT_REGISTERED 2201\]/);
  });
});

describe("usage errors: exit code 2, nothing sent", () => {
  test("a missing option", async () => {
    const result = await abas(["attest", "--agent", "a.json", "--type", "ToolCall", "--payload", "x"]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^abas attest: missing --operator <keypair>\n\nUsage: abas attest/);
  });

  test("a bad hash", async () => {
    await newKey("usage-key");
    const result = await abas([
      "attest",
      "--operator",
      "usage-key.json",
      "--agent",
      "usage-key.json",
      "--type",
      "ToolCall",
      "--hash",
      "abc",
    ]);
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /^abas attest: --hash must be 64 hex characters \(a SHA-256\), got 3 characters "abc"/,
    );
  });

  test("a key file that holds no key pair is named with its option, before anything is sent", async () => {
    writeFileSync(join(work, "short-key.json"), "[1,2,3]");
    writeFileSync(join(work, "object-key.json"), '{"secretKey":[]}');
    const attestWith = (operator: string, agent: string) =>
      abas(["attest", "--operator", operator, "--agent", agent, "--type", "ToolCall", "--payload", "x"], {
        env: { RPC_URL: "http://127.0.0.1:1" },
      });
    const short = await attestWith("short-key.json", "usage-key.json");
    assert.equal(short.code, 2, short.stderr);
    assert.match(
      short.stderr,
      /^abas attest: Invalid key pair: --operator \(key file \S*short-key\.json\) is 3 bytes; a Solana secret key is 64 \(seed, then public key\) \[ABAS_SDK__INVALID_KEY_PAIR 3400\]/,
    );
    const object = await attestWith("usage-key.json", "object-key.json");
    assert.equal(object.code, 2, object.stderr);
    assert.match(
      object.stderr,
      /^abas attest: Invalid key pair: --agent \(key file \S*object-key\.json\) is not a JSON array of 64 numbers/,
    );
  });

  test("a bad JSONL line is reported by its number before anything is sent", async () => {
    writeFileSync(
      join(work, "bad.jsonl"),
      ['{"actionType":"ToolCall","payload":"a"}', "", '{"actionType":"Nope","payload":"b"}'].join("\n"),
    );
    // The RPC URL is closed: reaching the network would fail differently.
    const result = await abas(
      [
        "batch",
        "--operator",
        "usage-key.json",
        "--agent",
        "usage-key.json",
        "--receipts-out",
        "bad-receipts.jsonl",
        "bad.jsonl",
      ],
      { env: { RPC_URL: "http://127.0.0.1:1" } },
    );
    assert.equal(result.code, 2);
    assert.match(
      result.stderr,
      /^abas batch: bad\.jsonl:3: actionType must be one of Transaction, ToolCall, Decision, ModelInvocation, got "Nope"; nothing was sent/,
    );
    assert.equal(existsSync(join(work, "bad-receipts.jsonl")), false);
  });

  test("an unknown command", async () => {
    const result = await abas(["frobnicate"]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^abas: unknown command "frobnicate"/);
  });

  test("start is the service's own command, npm start", async () => {
    const result = await abas(["start"]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^abas: unknown command "start"; start the service with npm start/);
  });

  test("every command has --help", async () => {
    const commands = ["keygen", "agent", "attest", "batch", "verify", "keys", "reindex", "status"];
    const results = await Promise.all(commands.map((command) => abas([command, "--help"])));
    for (const [index, result] of results.entries()) {
      assert.equal(result.code, 0, `${commands[index]}: ${result.stderr}`);
      assert.match(result.stdout, /Usage:/, commands[index]);
    }
  });
});

describe("unreachable ledger", () => {
  test("names the URL and the fix, exit 1", async () => {
    const result = await abas([
      "agent",
      "show",
      "11111111111111111111111111111111",
      "--rpc-url",
      "http://127.0.0.1:1",
    ]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /^abas agent: cannot reach the ledger at http:\/\/127\.0\.0\.1:1 \(The RPC request getAccountInfo failed: fetch failed: bad port\) \[ABAS_RUNTIME__RPC_REQUEST_FAILED 2200\]\n {2}fix: is the ledger running at http:\/\/127\.0\.0\.1:1\?/,
    );
  });

  test("a server that answers JSON, but not as a Solana node: the answer and the fix are named, exit 1", async () => {
    // A fault injected on purpose: an RPC URL that points at another JSON service
    await withJsonNode(
      () => ({}),
      async (url) => {
        const result = await abas(["agent", "show", "11111111111111111111111111111111", "--rpc-url", url]);
        assert.equal(result.code, 1);
        assert.equal(
          result.stderr,
          "abas agent: The RPC request getAccountInfo failed: the answer is not a JSON-RPC response (an object without result or error); " +
            "is the RPC URL a Solana JSON-RPC node? [ABAS_RUNTIME__RPC_REQUEST_FAILED 2200]\n" +
            `  fix: ${url} answers, but not as a Solana JSON-RPC node: point --rpc-url (RPC_URL) at one (npm start serves the local ledger at http://127.0.0.1:8899)\n`,
        );
      },
    );
  });

  test("an RPC URL's path and query (where a provider's key goes) are never printed", async () => {
    const result = await abas([
      "agent",
      "show",
      "11111111111111111111111111111111",
      "--rpc-url",
      "http://127.0.0.1:1/v2/SECRET?api-key=SECRET",
    ]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^abas agent: cannot reach the ledger at http:\/\/127\.0\.0\.1:1\/… /);
    assert.match(result.stderr, /fix: is the ledger running at http:\/\/127\.0\.0\.1:1\/…\?/);
    assert.doesNotMatch(result.stderr, /SECRET/);
  });

  test("global options may come before the command", async () => {
    const result = await abas([
      "--rpc-url",
      "http://127.0.0.1:1",
      "--json",
      "agent",
      "show",
      "11111111111111111111111111111111",
    ]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^abas agent: cannot reach the ledger at http:\/\/127\.0\.0\.1:1 /);
    assert.equal((JSON.parse(result.stdout) as { ok: boolean }).ok, false);
  });

  test("a usage error with --json is its message alone, exit 2", async () => {
    const result = await abas(["--json", "verify", "--hash", "abc"]);
    assert.equal(result.code, 2);
    assert.deepEqual(JSON.parse(result.stdout), {
      ok: false,
      error: { message: '--hash must be 64 hex characters (a SHA-256), got "abc"' },
    });
  });

  test("a malformed URL is named as given, flag or variable, exit 2", async () => {
    const fromEnv = await abas(["agent", "show", "11111111111111111111111111111111"], {
      env: { RPC_URL: "localhost:8899" },
    });
    assert.equal(fromEnv.code, 2);
    assert.match(
      fromEnv.stderr,
      /^abas agent: RPC_URL "localhost:8899" is not an http:\/\/ or https:\/\/ URL \(e\.g\. http:\/\/127\.0\.0\.1:8899\)/,
    );
    const fromFlag = await abas(["status", "--api-url", "ftp://example.com"]);
    assert.equal(fromFlag.code, 2);
    assert.match(
      fromFlag.stderr,
      /^abas status: --api-url "ftp:\/\/example\.com" is not an http:\/\/ or https:\/\/ URL/,
    );
  });

  test("status reports it, exit 1", async () => {
    const result = await abas([
      "status",
      "--json",
      "--rpc-url",
      "http://127.0.0.1:1",
      "--api-url",
      "http://127.0.0.1:1",
    ]);
    assert.equal(result.code, 1);
    const report = JSON.parse(result.stdout) as { ok: boolean; ledger: { reachable: boolean } };
    assert.equal(report.ok, false);
    assert.equal(report.ledger.reachable, false);
    // In words: each part with why it is unreachable, and a fix that exists
    const closed = await refusedPort();
    const human = await abas(["status"], {
      env: { RPC_URL: `http://127.0.0.1:${closed}`, ABAS_API_URL: `http://127.0.0.1:${closed}` },
    });
    assert.equal(human.code, 1);
    assert.match(
      human.stdout,
      /REST API {2}http:\/\/127\.0\.0\.1:\d+ {2}unreachable \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)/,
    );
    assert.match(human.stdout, /ledger {4}http:\/\/127\.0\.0\.1:\d+ {2}unreachable \(.*ECONNREFUSED/);
    assert.match(human.stdout, /fix: start the service \(npm start in the ABAS repository\)/);
  });
});

describe("service commands", () => {
  test("status: API health, ledger slot and version, indexer lag", async () => {
    const report = await abasJson<{
      ok: boolean;
      api: { status: string };
      ledger: { slot: number; version: string };
      indexer: { status: string } | null;
    }>(["status"]);
    assert.ok(["ok", "degraded"].includes(report.api.status), report.api.status);
    assert.equal(typeof report.ledger.slot, "number");
    assert.equal(typeof report.ledger.version, "string");
    assert.notEqual(report.indexer, null);
    const human = await abas(["status"]);
    assert.match(human.stdout, /ledger {4}http:\/\/127\.0\.0\.1:\d+ {2}slot \d+/);
  });

  test("keys create, list, revoke", async () => {
    const created = await abasJson<{ key: string; id: string }>(["keys", "create", "--name", "cli-test"]);
    assert.match(created.key, /^abas_/);
    const listed = await abasJson<{ id: string }[]>(["keys", "list"]);
    assert.ok(listed.some((key) => key.id === created.id));
    const revoked = await abas(["keys", "revoke", created.id]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, /revoked/);
    const unknown = await abas(["keys", "frob"]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^abas keys: unknown command "frob"/);
  });

  test("reindex rebuilds another database from the ledger", async () => {
    const result = await abas(["reindex", "--json"], { env: { DATA_DIR: join(work, "reindexed") } });
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout) as { transactions: number };
    assert.ok(summary.transactions > 0);
  });
});
