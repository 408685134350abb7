/**
 * `abas receipts list|verify|show` on a receipts folder written by the real `abas-mcp-proxy`
 * (in front of server-everything), against a real `abas-ledger`; the agent is set up with the
 * CLI itself (keygen, agent register). A tampered receipt or call fails with its exact code.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { spawnLedgerProcess, type LedgerProcess } from "@abas/ledger";
import { refusedPort } from "@abas/test-support";

import { abasIn, registerAgentWithAbas, runProcess } from "./support/abas-process.js";

const proxyBin = fileURLToPath(new URL("./bin.ts", import.meta.resolve("@abas/mcp-proxy")));
const everythingServer = createRequire(import.meta.url).resolve(
  "@modelcontextprotocol/server-everything/dist/index.js",
);

const work = mkdtempSync(join(tmpdir(), "abas-cli-receipts-"));
const receiptsDir = join(work, "receipts");
let ledger: LedgerProcess;
let env: NodeJS.ProcessEnv;
let agentAddress: string;

const cli = abasIn(work, () => env);
const { abas: abasWith, abasJson } = cli;
const abas = (args: readonly string[], extraEnv: NodeJS.ProcessEnv = {}) => abasWith(args, { env: extraEnv });

const message = (body: object) => `${JSON.stringify({ jsonrpc: "2.0", ...body })}\n`;

before(async () => {
  ledger = await spawnLedgerProcess({ dataDir: join(work, "ledger") });
  env = { ...process.env, RPC_URL: ledger.rpcUrl };
  delete env.PROGRAM_ID;
  agentAddress = (await registerAgentWithAbas(cli, ledger.rpcUrl)).agent;
  // Three tool calls through the real proxy, then stdin closes: the proxy sends them as one batch and exits
  const proxied = await runProcess(
    process.execPath,
    [
      "--import",
      import.meta.resolve("tsx"),
      proxyBin,
      "--rpc-url",
      ledger.rpcUrl,
      "--agent-keypair",
      join(work, "agent.json"),
      "--operator-keypair",
      join(work, "operator.json"),
      "--queue-dir",
      join(work, "queue"),
      "--receipts-dir",
      receiptsDir,
      "--max-batch-delay-ms",
      "3600000",
      "--",
      process.execPath,
      everythingServer,
      "stdio",
    ],
    work,
    env,
    {
      input: [
        message({
          id: 0,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        }),
        message({ method: "notifications/initialized" }),
        message({ id: 1, method: "tools/call", params: { name: "echo", arguments: { message: "one" } } }),
        message({ id: 2, method: "tools/call", params: { name: "get-sum", arguments: { a: 1, b: 2 } } }),
        message({ id: 3, method: "tools/call", params: { name: "no-such-tool", arguments: {} } }),
      ].join(""),
    },
  );
  assert.equal(proxied.code, 0, proxied.stderr);
  assert.equal(readdirSync(receiptsDir).length, 3, proxied.stderr);
});

after(async () => {
  await ledger?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** A copy of the receipts folder with one file changed by `tamper`. */
function tamperedCopy(
  name: string,
  tamper: (file: { call: Record<string, unknown>; receipt: Record<string, unknown> }) => void,
): string {
  const copy = join(work, name);
  cpSync(receiptsDir, copy, { recursive: true });
  const file = join(copy, readdirSync(copy)[0]!);
  const content = JSON.parse(readFileSync(file, "utf8"));
  tamper(content);
  writeFileSync(file, JSON.stringify(content));
  return copy;
}

type Listed = {
  receipts: Array<{ tool: string; outcome: string; agent: string; batchAddress: string; index: number }>;
};

describe("abas receipts", () => {
  test("list shows each tool call with its outcome and batch item, as a table and as JSON", async () => {
    const listed = await abas(["receipts", "list", receiptsDir]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^RECORDED +ACTION +OUTCOME +ITEM +PRIVACY +ACTION HASH +BATCH$/m);
    assert.match(listed.stdout, / echo +ok +\d\/3 +no /);
    assert.match(listed.stdout, / no-such-tool +error +\d\/3 +no /);
    assert.match(listed.stdout, /^3 receipts$/m);

    const { receipts } = await abasJson<Listed>(["receipts", "list", receiptsDir]);
    // (in the order the server answered, which is the order they were recorded)
    assert.deepEqual(receipts.map((receipt) => receipt.tool).sort(), ["echo", "get-sum", "no-such-tool"]);
    assert.deepEqual(
      receipts.map((receipt) => receipt.index),
      [0, 1, 2],
    );
    assert.ok(receipts.every((receipt) => receipt.agent === agentAddress));
    // Only the agent asked for
    const other = await abasJson<Listed>([
      "receipts",
      "list",
      receiptsDir,
      "--agent",
      "11111111111111111111111111111111",
    ]);
    assert.deepEqual(other.receipts, []);
  });

  test("verify checks every receipt against the ledger", async () => {
    const verified = await abas(["receipts", "verify", receiptsDir]);
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /^3\/3 receipts valid$/m);
    assert.match(verified.stderr, /verifying: 3\/3, 0 failed/);
    const json = await abasJson<{ valid: boolean; checked: number; failures: unknown[] }>([
      "receipts",
      "verify",
      receiptsDir,
    ]);
    assert.deepEqual(json, { valid: true, checked: 3, failures: [], withoutCall: [] });
  });

  test("receipts of another program than the one abas trusts (--program-id) fail the program check", async () => {
    const other = "BPFLoaderUpgradeab1e11111111111111111111111";
    const verified = await abas(["receipts", "verify", receiptsDir, "--program-id", other]);
    assert.equal(verified.code, 1);
    assert.match(verified.stdout, /^0\/3 receipts valid$/m);
    assert.match(
      verified.stderr,
      new RegExp(
        `FAIL .*\\.json \\[ABAS_SDK__RECEIPT_VERIFICATION_FAILED 3804\\]: .*program \\(the receipt is of the program \\w+, not of ${other}`,
      ),
    );
  });

  test("a tampered Merkle proof fails: ABAS_SDK__RECEIPT_VERIFICATION_FAILED, exit code 1", async () => {
    const folder = tamperedCopy("tampered-proof", ({ receipt }) => {
      const proof = receipt.proof as string[];
      proof[0] = `${proof[0]!.slice(0, -1)}${proof[0]!.endsWith("0") ? "1" : "0"}`;
    });
    const verified = await abas(["receipts", "verify", folder]);
    assert.equal(verified.code, 1);
    assert.match(verified.stdout, /^2\/3 receipts valid$/m);
    assert.match(
      verified.stderr,
      /FAIL .*\.json \[ABAS_SDK__RECEIPT_VERIFICATION_FAILED 3804\]: .*merkleProof/,
    );
    const json = await abas(["receipts", "verify", folder, "--json"]);
    assert.equal(json.code, 1);
    const { valid, failures } = JSON.parse(json.stdout) as {
      valid: boolean;
      failures: Array<{ codeName: string }>;
    };
    assert.equal(valid, false);
    assert.deepEqual(
      failures.map((failure) => failure.codeName),
      ["ABAS_SDK__RECEIPT_VERIFICATION_FAILED"],
    );
  });

  test("a receipt whose call was not kept verifies as a receipt, and says its call is not checked", async () => {
    const folder = tamperedCopy("without-call", (content) => {
      (content as { call: unknown }).call = null;
    });
    const withoutCall = readdirSync(folder).map((name) => join(folder, name))[0]!;
    const verified = await abas(["receipts", "verify", folder]);
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /^3\/3 receipts valid$/m);
    assert.match(
      verified.stderr,
      new RegExp(`^NO CALL ${withoutCall}: the call was not kept, so only its receipt is verified$`, "m"),
    );
    const json = await abasJson<{ withoutCall: string[] }>(["receipts", "verify", folder]);
    assert.deepEqual(json.withoutCall, [withoutCall]);
  });

  test("a call changed after the fact fails: ABAS_SDK__RECEIPT_CALL_MISMATCH", async () => {
    const folder = tamperedCopy("tampered-call", ({ call }) => {
      call.arguments = { message: "something else" };
    });
    const verified = await abas(["receipts", "verify", folder, "--json"]);
    assert.equal(verified.code, 1);
    const { failures } = JSON.parse(verified.stdout) as {
      failures: Array<{ codeName: string; code: number }>;
    };
    assert.deepEqual(
      failures.map((failure) => [failure.codeName, failure.code]),
      [["ABAS_SDK__RECEIPT_CALL_MISMATCH", 3803]],
    );
  });

  test("a receipt an editor saved with a byte order mark still verifies, as on the web's receipts page", async () => {
    const folder = join(work, "with-bom");
    cpSync(receiptsDir, folder, { recursive: true });
    const [edited] = readdirSync(folder).sort();
    writeFileSync(join(folder, edited!), `\uFEFF${readFileSync(join(folder, edited!), "utf8")}`);
    const verified = await abas(["receipts", "verify", folder]);
    assert.equal(verified.code, 0, verified.stderr);
    assert.match(verified.stdout, /^3\/3 receipts valid$/m);
  });

  test("a damaged receipt and a stray JSON file: ABAS_SDK__RECEIPT_FILE_UNREADABLE each, the rest still listed and verified", async () => {
    // Given a copy of the folder where one receipt was cut short, with an unrelated JSON file,
    // notes and a receipt still being written (the proxy writes aside, then renames) beside them
    const folder = join(work, "with-strangers");
    cpSync(receiptsDir, folder, { recursive: true });
    const [damaged, ...intact] = readdirSync(folder).sort();
    writeFileSync(join(folder, damaged!), readFileSync(join(folder, damaged!), "utf8").slice(0, 100));
    writeFileSync(join(folder, "package.json"), JSON.stringify({ name: "not-a-receipt" }));
    writeFileSync(join(folder, "shaped.json"), JSON.stringify({ call: null, receipt: { note: "x" } }));
    writeFileSync(join(folder, "notes.txt"), "rotate the agent key\n");
    writeFileSync(join(folder, `${intact[0]}.123.1.tmp`), "{");

    // When it is verified, the three JSON files that are not receipts fail with 3802 and the two intact receipts verify
    const verified = await abas(["receipts", "verify", folder]);
    assert.equal(verified.code, 1);
    assert.match(verified.stdout, /^2\/5 receipts valid$/m);
    assert.match(verified.stderr, /verifying: 5\/5, 3 failed/);
    const failLines = verified.stderr.split("\n").filter((line) => line.startsWith("FAIL "));
    assert.deepEqual(failLines.map((line) => line.replace(/\]:.*$/, "]")).sort(), [
      `FAIL ${join(folder, damaged!)} [ABAS_SDK__RECEIPT_FILE_UNREADABLE 3802]`,
      `FAIL ${join(folder, "package.json")} [ABAS_SDK__RECEIPT_FILE_UNREADABLE 3802]`,
      `FAIL ${join(folder, "shaped.json")} [ABAS_SDK__RECEIPT_FILE_UNREADABLE 3802]`,
    ]);
    const json = await abas(["receipts", "verify", folder, "--json"]);
    assert.equal(json.code, 1);
    const report = JSON.parse(json.stdout) as {
      valid: boolean;
      checked: number;
      failures: Array<{ file: string; tool: string | null; code: number }>;
    };
    assert.equal(report.valid, false);
    assert.equal(report.checked, 5);
    assert.deepEqual(report.failures.map(({ file, tool, code }) => [file, tool, code]).sort(), [
      [join(folder, damaged!), null, 3802],
      [join(folder, "package.json"), null, 3802],
      [join(folder, "shaped.json"), null, 3802],
    ]);

    // And list shows the two receipts, naming the files that are not one on stderr
    const listed = await abas(["receipts", "list", folder]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^2 receipts$/m);
    assert.match(
      listed.stderr,
      new RegExp(
        `^NOT A RECEIPT ${join(folder, "package.json")} \\[ABAS_SDK__RECEIPT_FILE_UNREADABLE 3802\\]: `,
        "m",
      ),
    );
    const listedJson = await abasJson<Listed & { unreadable: Array<{ file: string; code: number }> }>([
      "receipts",
      "list",
      folder,
    ]);
    assert.equal(listedJson.receipts.length, 2);
    assert.deepEqual(listedJson.unreadable.map(({ file, code }) => [file, code]).sort(), [
      [join(folder, damaged!), 3802],
      [join(folder, "package.json"), 3802],
      [join(folder, "shaped.json"), 3802],
    ]);

    // And show on the damaged file names it
    const shown = await abas(["receipts", "show", join(folder, damaged!)]);
    assert.equal(shown.code, 2);
    assert.match(shown.stderr, /ABAS_SDK__RECEIPT_FILE_UNREADABLE 3802/);
  });

  test("a receipt file of another shape is named, never a crash: a call that is not an object, a receipt field of the wrong type, a tool that is not text", async () => {
    // Given copies of the folder with one file changed each way
    const textCall = tamperedCopy("text-call", (content) => {
      (content as { call: unknown }).call = "echo";
    });
    const numberHash = tamperedCopy("number-hash", ({ receipt }) => {
      receipt.actionHash = 5;
    });
    const numberTool = tamperedCopy("number-tool", ({ call }) => {
      call.tool = 5;
    });
    // Then the first two are not receipts (3802), listed beside the others
    for (const folder of [textCall, numberHash]) {
      const listed = await abas(["receipts", "list", folder]);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stdout, /^2 receipts$/m);
      assert.match(
        listed.stderr,
        /^NOT A RECEIPT .*\[ABAS_SDK__RECEIPT_FILE_UNREADABLE 3802\]: .* cannot be read: its (call is neither an object nor null|receipt has no valid actionHash)$/m,
      );
    }
    // And a call whose tool is not text is listed by its action type, and fails as changed (3803)
    const listed = await abas(["receipts", "list", numberTool]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, / ToolCall +(ok|error) +\d\/3 /);
    const verified = await abas(["receipts", "verify", numberTool, "--json"]);
    assert.equal(verified.code, 1, verified.stderr);
    const { failures } = JSON.parse(verified.stdout) as {
      failures: Array<{ action: string; tool: string | null; code: number }>;
    };
    assert.deepEqual(
      failures.map(({ action, tool, code }) => [action, tool, code]),
      [["ToolCall", null, 3803]],
    );
  });

  test("a file whose JSON says more than its parse (a key given twice) is not a receipt (3802), whatever the parse verifies as", async () => {
    // Given a file whose call names another tool first, then its own: JSON.parse keeps its own
    const copy = join(work, "repeated-key");
    cpSync(receiptsDir, copy, { recursive: true });
    const file = join(copy, readdirSync(copy)[0]!);
    const content = JSON.parse(readFileSync(file, "utf8")) as { call: Record<string, unknown> };
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace(/"call":\s*\{/, '"call":{"tool":"bank.transfer",'),
    );
    assert.deepEqual((JSON.parse(readFileSync(file, "utf8")) as typeof content).call, content.call);
    // Then verify fails it alone, naming the key
    const verified = await abas(["receipts", "verify", copy]);
    assert.equal(verified.code, 1);
    assert.match(verified.stdout, /^2\/3 receipts valid$/m);
    assert.match(
      verified.stderr,
      /FAIL .*\.json \[ABAS_SDK__RECEIPT_FILE_UNREADABLE 3802\]: .*it says more than JSON\.parse reads: an object repeats the key "tool"/,
    );
  });

  test("a call nested deeper than canonical JSON can go fails alone (3802), and a tool's name with a newline stays on its row", async () => {
    // Given a copy of the folder where one call is nested 200,000 levels deep, and one where a tool's name has a newline
    const deep = tamperedCopy("deep-call", ({ call }) => {
      call.arguments = "DEEP";
    });
    const deepFile = join(deep, readdirSync(deep)[0]!);
    const levels = 100_000;
    writeFileSync(
      deepFile,
      readFileSync(deepFile, "utf8").replace('"DEEP"', `${"[".repeat(levels)}"bottom"${"]".repeat(levels)}`),
    );
    const newline = tamperedCopy("newline-tool", ({ call }) => {
      call.tool = "echo\n2026-01-01T00:00:00.000Z  forged";
    });
    // Then verify fails that file with 3802 and verifies the two others
    const verified = await abas(["receipts", "verify", deep]);
    assert.equal(verified.code, 1);
    assert.match(verified.stdout, /^2\/3 receipts valid$/m);
    assert.match(
      verified.stderr,
      /^FAIL .*\.json \[ABAS_SDK__RECEIPT_FILE_UNREADABLE 3802\]: .*its call has no canonical JSON/m,
    );
    // And list writes the newline as \n, one row per receipt
    const listed = await abas(["receipts", "list", newline]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, / echo\\n2026-01-01T00:00:00\.000Z {2}forged /);
    assert.equal(listed.stdout.trim().split("\n").length, 1 + 3 + 1);
  });

  test("show prints the batch of a receipt with its items, also found by Merkle root", async () => {
    const file = join(receiptsDir, readdirSync(receiptsDir)[0]!);
    const shown = await abas(["receipts", "show", file]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /items +3 \(3 published, complete\)/);
    assert.match(shown.stdout, /^[1-3] +ToolCall +no +[0-9a-f]{64} +echo ok$/m);
    assert.match(shown.stdout, /^[1-3] +ToolCall +no +[0-9a-f]{64} +no-such-tool error$/m);
    const { merkleRoot } = (JSON.parse(readFileSync(file, "utf8")) as { receipt: { merkleRoot: string } })
      .receipt;
    const byRoot = await abasJson<{
      found: boolean;
      batch: { merkleRoot: string; itemCount: number; agent: string };
    }>(["receipts", "show", merkleRoot, "--agent", agentAddress]);
    assert.equal(byRoot.batch.itemCount, 3);
    assert.equal(byRoot.batch.agent, agentAddress);
    const unknown = await abas(["receipts", "show", "ab".repeat(32), "--agent", agentAddress]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no batch with Merkle root/);
    const withoutAgent = await abas(["receipts", "show", merkleRoot]);
    assert.equal(withoutAgent.code, 2);
    assert.match(withoutAgent.stderr, /needs --agent <address>/);
    // The start of the action hash, as list shows it (cut short with "…"), finds the file too
    const hashes = readdirSync(receiptsDir).map((name) => name.slice(0, 64));
    const listed = await abas(["receipts", "list", receiptsDir]);
    const shortHash = /[0-9a-f]{16}…/.exec(listed.stdout)![0];
    const byStart = await abas(["receipts", "show", join(receiptsDir, shortHash)]);
    assert.equal(byStart.code, 0, byStart.stderr);
    assert.equal(
      byStart.stdout,
      (
        await abas([
          "receipts",
          "show",
          join(receiptsDir, `${hashes.find((hash) => hash.startsWith(shortHash.slice(0, 16)))}.json`),
        ])
      ).stdout,
    );
    // A start that several files share is refused, naming how many (the same receipt kept under
    // its own name too, as the proxy keeps it beside a file of another call)
    const twice = join(work, "twice");
    cpSync(receiptsDir, twice, { recursive: true });
    const [first] = readdirSync(twice);
    const { receipt } = JSON.parse(readFileSync(join(twice, first!), "utf8")) as {
      receipt: { batchAddress: string; index: number };
    };
    cpSync(
      join(twice, first!),
      join(twice, `${first!.slice(0, 64)}.${receipt.batchAddress}.${receipt.index}.json`),
    );
    const shared = await abas(["receipts", "show", join(twice, first!.slice(0, 16))]);
    assert.equal(shared.code, 2);
    assert.match(
      shared.stderr,
      new RegExp(
        `2 receipt files in .* start with ${first!.slice(0, 16)}: give more of the name, e.g. ${first!.slice(0, 64)}`,
      ),
    );
    // A file whose call was changed is not taken at its word: its item says it does not verify,
    // and where the genuine file names the same item too, the genuine one is shown
    const tampered = join(work, "tampered");
    cpSync(receiptsDir, tampered, { recursive: true });
    const kept = JSON.parse(readFileSync(join(tampered, first!), "utf8")) as {
      call: { tool: string };
      receipt: { index: number };
    };
    const changed = { ...kept, call: { ...kept.call, tool: "transfer_all_funds" } };
    writeFileSync(join(tampered, first!), JSON.stringify(changed));
    const row = (stdout: string) =>
      new RegExp(`^${kept.receipt.index + 1} +ToolCall +no +[0-9a-f]{64} +(.*)$`, "m").exec(stdout)?.[1];
    const shownTampered = await abas(["receipts", "show", join(tampered, first!)]);
    assert.equal(shownTampered.code, 0, shownTampered.stderr);
    assert.equal(row(shownTampered.stdout), `NOT VERIFIED (ABAS_SDK__RECEIPT_CALL_MISMATCH): ${first!}`);
    assert.doesNotMatch(shownTampered.stdout, /transfer_all_funds/);
    cpSync(
      join(receiptsDir, first!),
      join(tampered, `${first!.slice(0, 64)}.${receipt.batchAddress}.${receipt.index}.json`),
    );
    const shownBoth = await abas(["receipts", "show", join(tampered, first!)]);
    assert.equal(row(shownBoth.stdout), `${kept.call.tool} ${row(shown.stdout)!.split(" ").at(-1)}`);

    const none = await abas(["receipts", "show", join(receiptsDir, "zz")]);
    assert.equal(none.code, 2);
    assert.match(
      none.stderr,
      /there is no file .*zz: give a receipt file of a folder \(<folder>\/<action hash>\.json, or <folder>\/ and the start of the action hash as abas receipts list shows it\), or a batch's Merkle root with --agent/,
    );
  });

  test("a folder that does not exist: ABAS_SDK__RECEIPTS_FOLDER_NOT_FOUND, exit code 2", async () => {
    const listed = await abas(["receipts", "list", join(work, "nowhere")]);
    assert.equal(listed.code, 2);
    assert.match(listed.stderr, /: nothing is there \[ABAS_SDK__RECEIPTS_FOLDER_NOT_FOUND 3801\]/);
  });

  test("a receipt file where the folder is expected: ABAS_SDK__RECEIPTS_FOLDER_NOT_FOUND naming its folder, exit code 2", async () => {
    const file = join(receiptsDir, readdirSync(receiptsDir)[0]!);
    const verified = await abas(["receipts", "verify", file]);
    assert.equal(verified.code, 2);
    assert.match(
      verified.stderr,
      new RegExp(
        `it is a file; name the folder that holds it \\(${receiptsDir}\\) \\[ABAS_SDK__RECEIPTS_FOLDER_NOT_FOUND 3801\\]`,
      ),
    );
    // abas verify takes bare receipts: a folder, or a folder's file, is sent to abas receipts verify
    const folderToVerify = await abas(["verify", receiptsDir]);
    assert.equal(folderToVerify.code, 2);
    assert.match(
      folderToVerify.stderr,
      /is a folder; a receipts folder is verified with: abas receipts verify /,
    );
    const fileToVerify = await abas(["verify", file]);
    assert.equal(fileToVerify.code, 2);
    assert.match(
      fileToVerify.stderr,
      /holds a tool call with its receipt .* abas receipts verify <its folder>/,
    );
    // and show takes one file of the folder
    const folderToShow = await abas(["receipts", "show", receiptsDir]);
    assert.equal(folderToShow.code, 2);
    assert.match(folderToShow.stderr, /is a folder: give one of its receipt files \(abas receipts list /);
    const missing = await abas(["receipts", "show", join(receiptsDir, "nothing.json")]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /there is no file .*nothing\.json/);
  });

  test("a folder with no receipts (or none of --agent) verifies nothing: exit code 1", async () => {
    const empty = join(work, "empty");
    mkdirSync(empty);
    const verified = await abas(["receipts", "verify", empty]);
    assert.equal(verified.code, 1);
    assert.match(verified.stdout, /^0\/0 receipts valid$/m);
    assert.match(verified.stderr, /no receipt files in .*empty, so nothing is verified/);
    const json = await abas(["receipts", "verify", empty, "--json"]);
    assert.equal(json.code, 1);
    assert.deepEqual(JSON.parse(json.stdout), { valid: false, checked: 0, failures: [], withoutCall: [] });
    const otherAgent = await abas([
      "receipts",
      "verify",
      receiptsDir,
      "--agent",
      "11111111111111111111111111111111",
    ]);
    assert.equal(otherAgent.code, 1);
    assert.match(otherAgent.stderr, /of agent 11111111111111111111111111111111, so nothing is verified/);
  });

  test("an unreachable ledger fails each receipt with ABAS_RUNTIME__RPC_REQUEST_FAILED and names the setting to check", async () => {
    const rpcUrl = `http://127.0.0.1:${await refusedPort()}`;
    const verified = await abas(["receipts", "verify", receiptsDir], { RPC_URL: rpcUrl });
    assert.equal(verified.code, 1);
    assert.match(verified.stdout, /^0\/3 receipts valid$/m);
    assert.equal(verified.stderr.match(/\[ABAS_RUNTIME__RPC_REQUEST_FAILED 2200\]/g)?.length, 3);
    assert.match(
      verified.stderr,
      new RegExp(
        `\n {2}fix: is the ledger running at ${rpcUrl}\\? .* point --rpc-url \\(RPC_URL\\) at a running node`,
      ),
    );
  });
});
