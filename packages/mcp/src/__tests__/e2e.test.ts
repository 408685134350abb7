/**
 * The MCP server as a host runs it: the package packed with `npm pack`, installed offline into a
 * fresh directory (it has no runtime dependencies), started with `npx -y @abas/mcp` and the env of
 * an MCP config, and driven by the official MCP client over stdio against a running ABAS service
 * whose agent attested a plain action, a privacy-mode action and a batch.
 */
import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import {
  ACTION_TYPE_NAMES,
  ApiAgent,
  ApiAttestation,
  ApiAttestationPage,
  ApiReputation,
} from "@abas/api-contract";
import { verifyReceipt, type BatchItemReceipt, type Receipt } from "@abas/sdk";
import { refusedPort } from "@abas/test-support";

import { packAndInstall, type InstalledPackage } from "./support/packed-package.js";
import { startLocalStack, type LocalStack } from "./support/local-stack.js";
import { connectClient, type ConnectedClient, type ToolCall } from "./support/mcp-client.js";
import { runRawSession } from "./support/raw-session.js";

const TOOL_NAMES = ["get_agent_attestations", "get_agent_reputation", "verify_action_hash"];

/** A port nothing listens on. */
interface CheckedAttestation {
  verified: boolean;
  actionHash: string;
  receipt: Record<string, unknown> | null;
  kind: string;
  agent: string;
  operator: string;
  actionType: string;
  privacyMode: boolean;
  slot: number;
  timestamp: number;
  accountAddress: string;
  txSignature: string | null;
  explorerUrl: string | null;
  agentSignature: string;
  batch: {
    index: number;
    itemCount: number;
    complete: boolean;
    merkleRoot: string;
    proofSource: string;
  } | null;
  checks: Record<string, { ok: boolean; reason?: string }>;
}

interface Verification {
  attested: boolean;
  complete: boolean;
  actionHash: string;
  storedHash: string;
  hashedFrom: string;
  canonicalPayload: string | null;
  searchedBy: string;
  attestations: CheckedAttestation[];
  notes: string[];
}

const verification = (call: ToolCall): Verification => {
  assert.equal(call.isError, false, call.text);
  return call.structured as unknown as Verification;
};

function assertRecovers(call: ToolCall, ...patterns: RegExp[]): void {
  assert.equal(call.isError, true, `expected an isError result, got: ${call.text}`);
  assert.equal(call.structured, undefined);
  for (const pattern of patterns) assert.match(call.text, pattern);
}

describe("abas-mcp, installed from its tarball and started with `npx -y @abas/mcp`", () => {
  let installed: InstalledPackage;
  let stack: LocalStack;
  let mcp: ConnectedClient;
  let configEnv: Record<string, string>;
  const extraClients: ConnectedClient[] = [];

  async function connect(env: Record<string, string>): Promise<ConnectedClient> {
    const client = await connectClient(installed.hostDir, env);
    extraClients.push(client);
    return client;
  }

  before(async () => {
    [installed, stack] = await Promise.all([packAndInstall(), startLocalStack()]);
    // The env block of the MCP config in the README, with this stack's addresses.
    configEnv = { ABAS_API_URL: stack.apiUrl, ABAS_API_KEY: stack.apiKey, ABAS_RPC_URL: stack.rpcUrl };
    mcp = await connectClient(installed.hostDir, configEnv);
  });

  after(async () => {
    for (const client of [mcp, ...extraClients]) await client?.close().catch(() => undefined);
    await stack?.stop();
    installed?.dispose();
  });

  it("is a package with no runtime dependencies: the tarball holds the bundle, its licenses, package.json and README", () => {
    assert.deepEqual(installed.installedPackages, ["@abas/mcp"]);
    const files = execFileSync("tar", ["-tzf", installed.tarball], { encoding: "utf8" })
      .trim()
      .split("\n")
      .sort();
    assert.deepEqual(files, [
      "package/README.md",
      "package/dist/THIRD-PARTY-LICENSES.txt",
      "package/dist/abas-mcp.js",
      "package/package.json",
    ]);
  });

  it("lists its tools with input and output schemas and read-only, open-world annotations", async () => {
    const { tools } = await mcp.client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name).sort(), TOOL_NAMES);
    for (const tool of tools) {
      assert.ok(tool.description && tool.description.length > 100, `${tool.name} has a description`);
      assert.equal(tool.inputSchema.type, "object");
      assert.equal(tool.outputSchema?.type, "object", `${tool.name} has an output schema`);
      assert.deepEqual(
        { ...tool.annotations, title: undefined },
        {
          title: undefined,
          readOnlyHint: true,
          destructiveHint: false,
          idempotentHint: true,
          openWorldHint: true,
        },
      );
      assert.ok(tool.annotations?.title, `${tool.name} has a title`);
    }
    const verify = tools.find((tool) => tool.name === "verify_action_hash")!;
    assert.deepEqual(Object.keys(verify.inputSchema.properties ?? {}).sort(), [
      "actionHash",
      "agent",
      "batchAddress",
      "index",
      "payload",
      "proof",
      "salt",
      "txSignature",
    ]);
    assert.match(verify.description!, /RFC 8785/);
    const list = tools.find((tool) => tool.name === "get_agent_attestations")!;
    assert.deepEqual(list.inputSchema.required, ["agent"]);
  });

  it("describes what it passes on from the API with the API contract's own schemas", async () => {
    type JsonSchema = { properties: Record<string, JsonSchema>; items: JsonSchema } & Record<string, unknown>;
    const { tools } = await mcp.client.listTools();
    const outputOf = (name: string) =>
      tools.find((tool) => tool.name === name)!.outputSchema as unknown as JsonSchema;
    const list = outputOf("get_agent_attestations").properties;
    const item = list.attestations!.items.properties;
    assert.equal(item.storedHash!.description, ApiAttestation.properties.storedHash.description);
    assert.deepEqual(item.actionType!.enum, [...ACTION_TYPE_NAMES]);
    assert.equal(item.slot!.type, "integer");
    assert.deepEqual(list.reputation!.required, ApiReputation.required);
    assert.deepEqual(list.pagination!.required, ApiAttestationPage.properties.pagination.required);
    assert.deepEqual(list.status!.enum, ApiAgent.properties.status.enum);
    const reputation = outputOf("get_agent_reputation");
    for (const field of ApiReputation.required ?? []) assert.ok(field in reputation.properties, field);
  });

  describe("get_agent_attestations", () => {
    it("returns the agent's receipts, newest first, with its reputation and explorer links", async () => {
      const { fixtures } = stack;
      const call = await mcp.call("get_agent_attestations", { agent: fixtures.agent });
      assert.equal(call.isError, false, call.text);
      const answer = call.structured as {
        agent: string;
        operator: string;
        status: string;
        totals: { attestations: number; single: number; batchItems: number };
        reputation: { score: number; version: string; components: Record<string, number> };
        attestations: { txSignature: string; kind: string; privacy: boolean; explorerUrl: string }[];
        pagination: { hasMore: boolean; nextCursor: string | null };
      };
      assert.equal(answer.agent, fixtures.agent);
      assert.equal(answer.operator, fixtures.operator);
      assert.equal(answer.status, "active");
      assert.deepEqual(answer.totals, { ...answer.totals, attestations: 5, single: 2, batchItems: 3 });
      const api = await stack.api.getAgent(fixtures.agent);
      assert.deepEqual(answer.reputation, api.reputation);
      assert.equal(answer.attestations.length, 5);
      assert.deepEqual(
        answer.attestations.map((item) => item.kind),
        ["batch", "batch", "batch", "single", "single"],
      );
      assert.ok(answer.attestations.some((item) => item.txSignature === fixtures.plain.txSignature));
      assert.match(answer.attestations[0]!.explorerUrl, /^https:\/\/explorer\.solana\.com\/tx\//);
      assert.deepEqual(answer.pagination, { nextCursor: null, hasMore: false });
      assert.match(call.text, new RegExp(`Reputation ${api.reputation.score}/100`));
    });

    it("filters by privacy and action type, and pages with the cursor", async () => {
      const { fixtures } = stack;
      const privateOnly = await mcp.call("get_agent_attestations", { agent: fixtures.agent, privacy: true });
      const privateItems = (privateOnly.structured as { attestations: { storedHash: string }[] })
        .attestations;
      assert.deepEqual(
        privateItems.map((item) => item.storedHash),
        [fixtures.private.storedHash],
      );
      const toolCalls = await mcp.call("get_agent_attestations", {
        agent: fixtures.agent,
        actionType: "ToolCall",
        since: "2000-01-01",
      });
      assert.deepEqual(
        (toolCalls.structured as { attestations: { txSignature: string }[] }).attestations.map(
          (a) => a.txSignature,
        ),
        [fixtures.plain.txSignature],
      );

      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await mcp.call("get_agent_attestations", { agent: fixtures.agent, limit: 2, cursor });
        const body = page.structured as {
          attestations: { id: string }[];
          pagination: { nextCursor: string | null };
        };
        seen.push(...body.attestations.map((item) => item.id));
        cursor = body.pagination.nextCursor ?? undefined;
        if (cursor) assert.match(page.text, /call again with cursor/);
      } while (cursor);
      assert.equal(new Set(seen).size, 5);
    });

    it("answers an unknown agent with isError and how to recover", async () => {
      const call = await mcp.call("get_agent_attestations", { agent: stack.fixtures.operator });
      assertRecovers(call, /No agent .* is known/, /agent's public key \(not its operator's wallet\)/);
    });

    it("names the field of a bad input, in the handler and in the MCP schema validation", async () => {
      // 43 base58 "1"s fit the pattern but are 43 zero bytes, not a 32-byte key: the handler says so
      assertRecovers(
        await mcp.call("get_agent_attestations", { agent: "1".repeat(43) }),
        /^Invalid input: `agent` is not a public key: expected 32 bytes in base58/,
      );
      // Bad types and formats never reach the handler: the server's schema validation names the field
      assertRecovers(
        await mcp.call("get_agent_attestations", { agent: stack.fixtures.agent, limit: 500 }),
        /Input validation error/,
        /at limit/,
      );
      assertRecovers(
        await mcp.call("get_agent_attestations", { agent: "0xabc" }),
        /expected the agent's public key: 32 to 44 base58 characters at agent/,
      );
      assertRecovers(
        await mcp.call("get_agent_attestations", { agent: stack.fixtures.agent, since: "yesterday" }),
        /at since/,
      );
      assertRecovers(
        await mcp.call("get_agent_attestations", { agent: stack.fixtures.agent, cursor: "not-ours" }),
        /`cursor` is not a cursor this API issued/,
      );
    });
  });

  describe("get_agent_reputation", () => {
    it("returns the score, its components and weights, its inputs and the formula version", async () => {
      const { fixtures } = stack;
      const call = await mcp.call("get_agent_reputation", { agent: fixtures.agent });
      assert.equal(call.isError, false, call.text);
      const api = await stack.api.getAgent(fixtures.agent);
      const answer = call.structured as Record<string, unknown>;
      for (const field of [
        "score",
        "version",
        "components",
        "weights",
        "uncappedScore",
        "cap",
        "referenceTime",
      ]) {
        assert.deepEqual(answer[field], api.reputation[field as keyof typeof api.reputation], field);
      }
      assert.equal(answer.status, "active");
      assert.deepEqual(answer.inputs, {
        registeredAt: new Date(api.registeredAt * 1000).toISOString(),
        attestations: 5,
        activeDaysLast30: api.metrics.recent.activeDaysLast30,
        policyViolations: 0,
      });
      assert.match(String(answer.formula), /0\.25·tenure \+ 0\.30·volume/);
      assert.match(call.text, new RegExp(`reputation ${api.reputation.score}/100 \\(formula v1\\)`));
    });

    it("answers an unknown agent with isError, and a malformed one naming the field", async () => {
      assertRecovers(await mcp.call("get_agent_reputation", { agent: stack.fixtures.operator }), /No agent/);
      assertRecovers(await mcp.call("get_agent_reputation", {}), /Input validation error/, /at agent/);
    });
  });

  describe("verify_action_hash", () => {
    it("verifies a plain attestation from its JSON payload, canonicalized, found through the index", async () => {
      const { fixtures } = stack;
      // Given the payload object with its keys in another order than the canonical one
      const result = verification(await mcp.call("verify_action_hash", { payload: fixtures.plainPayload }));
      assert.equal(result.attested, true);
      assert.equal(result.actionHash, fixtures.plain.actionHash);
      assert.equal(result.hashedFrom, "payload as RFC 8785 canonical JSON");
      assert.equal(
        result.canonicalPayload,
        '{"arguments":{"from":"LIS","passengers":2,"to":"SFO"},"tool":"flights.search"}',
      );
      assert.equal(result.searchedBy, "index");
      const [attestation] = result.attestations;
      assert.equal(result.attestations.length, 1);
      assert.equal(attestation!.verified, true);
      assert.deepEqual(
        {
          kind: attestation!.kind,
          agent: attestation!.agent,
          operator: attestation!.operator,
          actionType: attestation!.actionType,
          slot: attestation!.slot,
          timestamp: attestation!.timestamp,
          accountAddress: attestation!.accountAddress,
          txSignature: attestation!.txSignature,
          agentSignature: attestation!.agentSignature,
        },
        {
          kind: "single",
          agent: fixtures.agent,
          operator: fixtures.operator,
          actionType: "ToolCall",
          slot: fixtures.plain.slot,
          timestamp: fixtures.plain.timestamp,
          accountAddress: fixtures.plain.attestationAddress,
          txSignature: fixtures.plain.txSignature,
          agentSignature: fixtures.plain.agentSignature,
        },
      );
      assert.deepEqual(Object.keys(attestation!.checks).sort(), [
        "account",
        "accountFields",
        "address",
        "agentSignature",
        "format",
        "program",
        "storedHash",
        "transaction",
      ]);
      assert.ok(Object.values(attestation!.checks).every((check) => check.ok));
      assert.match(attestation!.explorerUrl!, /explorer\.solana\.com\/tx\/.*cluster=custom/);
      assert.deepEqual([result.complete, attestation!.actionHash], [true, fixtures.plain.actionHash]);
      // And the receipt it gives verifies on its own
      assert.equal(
        (await verifyReceipt(attestation!.receipt as Receipt, { rpcUrl: stack.rpcUrl })).valid,
        true,
      );
    });

    it("hashes a JSON payload as sent: a `__proto__` member is part of it, not dropped", async () => {
      const { fixtures } = stack;
      // Given the attested payload with a member named __proto__ added, as JSON on the wire
      const payload = JSON.parse(
        `{"__proto__":{"tool":"other"},${JSON.stringify(fixtures.plainPayload).slice(1)}`,
      ) as Record<string, unknown>;
      assert.ok(Object.keys(payload).includes("__proto__"));
      const result = verification(await mcp.call("verify_action_hash", { payload }));
      // Then what was hashed holds it, and the attested payload (without it) is not reported
      assert.equal(result.attested, false);
      assert.match(result.canonicalPayload!, /^\{"__proto__":\{"tool":"other"\},"arguments"/);
    });

    it("verifies a privacy-mode attestation with its salt, and does not find it without", async () => {
      const { fixtures } = stack;
      const withSalt = verification(
        await mcp.call("verify_action_hash", {
          payload: fixtures.privatePayload,
          salt: fixtures.private.salt,
        }),
      );
      assert.equal(withSalt.attested, true);
      assert.equal(withSalt.storedHash, fixtures.private.storedHash);
      assert.notEqual(withSalt.storedHash, withSalt.actionHash);
      assert.deepEqual(
        withSalt.attestations.map((a) => [a.verified, a.privacyMode, a.actionType, a.txSignature]),
        [[true, true, "Decision", fixtures.private.txSignature]],
      );

      const withoutSalt = verification(
        await mcp.call("verify_action_hash", { actionHash: fixtures.private.actionHash }),
      );
      assert.equal(withoutSalt.attested, false);
      assert.deepEqual(withoutSalt.attestations, []);
      assert.ok(withoutSalt.notes.some((note) => /holds no attestation that stores/.test(note)));
      assert.match(
        (await mcp.call("verify_action_hash", { actionHash: fixtures.private.actionHash })).text,
        /salt/,
      );
    });

    it("verifies a batch item with its receipt's proof against the on-chain root", async () => {
      const { fixtures } = stack;
      const item = fixtures.batch.receipts[1]!;
      const result = verification(
        await mcp.call("verify_action_hash", {
          payload: fixtures.batchPayloads[1],
          batchAddress: item.batchAddress,
          index: item.index,
          proof: item.proof,
        }),
      );
      assert.equal(result.attested, true);
      assert.equal(result.searchedBy, "batchAddress");
      const [attestation] = result.attestations;
      assert.equal(attestation!.kind, "batch-item");
      assert.deepEqual(attestation!.batch, {
        ...attestation!.batch!,
        index: 1,
        itemCount: 3,
        complete: true,
        merkleRoot: fixtures.batch.merkleRoot,
        proofSource: "input",
      });
      assert.equal(attestation!.txSignature, fixtures.batch.txSignature);
      assert.equal(attestation!.checks.merkleProof?.ok, true);
      assert.equal(attestation!.checks.batchLeaf?.ok, true);
      assert.equal(attestation!.checks.agentSignature?.ok, true);
      const receipt = attestation!.receipt as BatchItemReceipt;
      assert.deepEqual(receipt.batchActionTypes, fixtures.batch.receipts[1]!.batchActionTypes);
      assert.equal((await verifyReceipt(receipt, { rpcUrl: stack.rpcUrl })).valid, true);
    });

    it("rejects a batch item whose proof does not lead to the root, saying which check failed", async () => {
      const { fixtures } = stack;
      const item = fixtures.batch.receipts[1]!;
      const call = await mcp.call("verify_action_hash", {
        payload: fixtures.batchPayloads[1],
        batchAddress: item.batchAddress,
        index: item.index,
        proof: [...item.proof].reverse(),
      });
      const result = verification(call);
      assert.equal(result.attested, false);
      assert.equal(result.attestations[0]!.checks.merkleProof?.ok, false);
      assert.match(call.text, /FAILED merkleProof: the proof does not link item 2 to the Merkle root/);
    });

    it("finds batch items and singles from the ledger given only the agent or the transaction", async () => {
      const { fixtures } = stack;
      // A batch item through the index, its proof rebuilt from the leaves the ledger stores
      const byIndex = verification(
        await mcp.call("verify_action_hash", { payload: fixtures.batchPayloads[2] }),
      );
      assert.equal(byIndex.attested, true);
      assert.equal(byIndex.attestations[0]!.batch?.proofSource, "ledger");
      // The agent's own single attestation, read at its address on the ledger
      const byAgent = verification(
        await mcp.call("verify_action_hash", {
          actionHash: fixtures.plain.actionHash,
          agent: fixtures.agent,
        }),
      );
      assert.deepEqual([byAgent.attested, byAgent.searchedBy], [true, "agent"]);
      // The agent's batch item: which batch holds it comes from the index, the rest from the ledger
      const batchByAgent = verification(
        await mcp.call("verify_action_hash", { payload: fixtures.batchPayloads[1], agent: fixtures.agent }),
      );
      assert.deepEqual(
        [batchByAgent.attested, batchByAgent.searchedBy, batchByAgent.attestations[0]!.batch?.index],
        [true, "agent", 1],
      );
      // The accounts a batch commit transaction wrote
      const byTransaction = verification(
        await mcp.call("verify_action_hash", {
          payload: fixtures.batchPayloads[0],
          txSignature: fixtures.batch.txSignature,
        }),
      );
      assert.deepEqual([byTransaction.attested, byTransaction.searchedBy], [true, "txSignature"]);
      assert.equal(byTransaction.attestations[0]!.batch?.index, 0);
    });

    it("answers attested: false for a hash nobody attested, and isError for references that do not exist", async () => {
      const { fixtures } = stack;
      const unknown = verification(await mcp.call("verify_action_hash", { payload: "never attested" }));
      assert.deepEqual([unknown.attested, unknown.attestations], [false, []]);
      const otherAgent = verification(
        await mcp.call("verify_action_hash", {
          actionHash: fixtures.plain.actionHash,
          agent: fixtures.operator,
        }),
      );
      assert.equal(otherAgent.attested, false);
      assert.ok(otherAgent.notes.some((note) => /is registered with the ABAS program/.test(note)));

      assertRecovers(
        await mcp.call("verify_action_hash", { payload: "x", batchAddress: fixtures.agent }),
        /no ABAS batch attestation at batchAddress/,
      );
      assertRecovers(
        await mcp.call("verify_action_hash", { payload: "x", txSignature: "1".repeat(64) }),
        /The ledger has no transaction/,
      );
    });

    it("names the field of a bad input", async () => {
      const { fixtures } = stack;
      assertRecovers(
        await mcp.call("verify_action_hash", { actionHash: fixtures.plain.actionHash, payload: "x" }),
        /^Invalid input: `actionHash` or `payload`: give exactly one of them/,
      );
      assertRecovers(await mcp.call("verify_action_hash", {}), /give exactly one of them/);
      assertRecovers(
        await mcp.call("verify_action_hash", { actionHash: "xyz" }),
        /Input validation error/,
        /expected 64 hexadecimal characters \(a SHA-256 hash\) at actionHash/,
      );
      assertRecovers(await mcp.call("verify_action_hash", { payload: "x", salt: "00" }), /at salt/);
      assertRecovers(
        await mcp.call("verify_action_hash", { payload: "x", index: 1 }),
        /^Invalid input: `index` needs the batch it numbers/,
      );
      assertRecovers(
        await mcp.call("verify_action_hash", {
          payload: "x",
          batchAddress: fixtures.batch.batchAddress,
          index: 7,
        }),
        /`index` must be below the batch's item count, 3/,
      );
      assertRecovers(
        await mcp.call("verify_action_hash", { payload: 42 }),
        /Input validation error/,
        /payload/,
      );
      // A misspelt argument is refused, not ignored
      assertRecovers(
        await mcp.call("verify_action_hash", {
          actionHash: fixtures.private.actionHash,
          Salt: fixtures.private.salt,
        }),
        /Input validation error/,
        /Unrecognized key: "Salt"/,
      );
      assertRecovers(
        await mcp.call("verify_action_hash", { payload: { value: "\ud800" } }),
        /`payload` cannot be written as canonical JSON/,
      );
    });
  });

  it("writes nothing but JSON-RPC messages to stdout, logs to stderr, and exits when stdin closes", async (t) => {
    const { fixtures } = stack;
    const session = await runRawSession("npx", ["-y", "@abas/mcp"], {
      cwd: installed.hostDir,
      env: { ...process.env, ...configEnv, LOG_LEVEL: "debug" },
      requests: [
        {
          jsonrpc: "2.0",
          id: 3,
          method: "tools/call",
          params: { name: "get_agent_reputation", arguments: { agent: fixtures.agent } },
        },
        {
          jsonrpc: "2.0",
          id: 4,
          method: "tools/call",
          params: { name: "verify_action_hash", arguments: { payload: "x", index: 1 } },
        },
        { jsonrpc: "2.0", id: 5, method: "no/such/method" },
      ],
    });
    assert.ok(session.stdoutLines.length >= 5);
    for (const line of session.stdoutLines) {
      const message = JSON.parse(line) as { jsonrpc?: string };
      assert.equal(message.jsonrpc, "2.0", line);
    }
    assert.match(session.stderr, /abas-mcp info: abas-mcp \d+\.\d+\.\d+ ready on stdio/);
    assert.match(session.stderr, /get_agent_reputation answered in/);
    assert.doesNotMatch(session.stderr, new RegExp(stack.apiKey), "the API key is never logged");
    assert.equal(session.exitCode, 0);
    assert.deepEqual(mcp.protocolErrors, []);
    t.diagnostic(
      `first tools/list answer ${Math.round(session.toolsListMs)} ms after spawning npx -y @abas/mcp`,
    );
  });

  it("skips a line that is not JSON-RPC, saying so on stderr, and stops with exit code 1 on a line over 10 MB", () => {
    const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });
    const run = (input: string) =>
      spawnSync("npx", ["-y", "@abas/mcp"], {
        cwd: installed.hostDir,
        env: { ...process.env, ...configEnv },
        input,
        encoding: "utf8",
      });

    const skipped = run(`not json\n{"jsonrpc":"2.0","foo":1}\n${ping(1)}\n`);
    assert.equal(skipped.status, 0, skipped.stderr);
    assert.deepEqual(
      skipped.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as unknown),
      [{ jsonrpc: "2.0", id: 1, result: {} }],
    );
    assert.match(skipped.stderr, /warn: MCP session: a line on stdin is not JSON, skipped/);
    assert.match(
      skipped.stderr,
      /warn: MCP session: a line on stdin is JSON but not a JSON-RPC message, skipped/,
    );

    const tooLong = run(`${ping(1)}\n${"x".repeat(11 * 1024 * 1024)}\n${ping(2)}\n`);
    assert.equal(tooLong.status, 1, tooLong.stderr);
    assert.equal(tooLong.stdout, `${JSON.stringify({ result: {}, jsonrpc: "2.0", id: 1 })}\n`);
    assert.match(
      tooLong.stderr,
      /error: stopping: stdin can no longer be read \(ReadBuffer exceeded maximum size of 10485760 bytes\)/,
    );
  });

  /** The installed bin, run by node itself (no npx process between the test and the server). */
  const installedBin = () => join(installed.hostDir, "node_modules/@abas/mcp/dist/abas-mcp.js");
  const line = (message: Record<string, unknown>) => `${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`;
  const initialize = line({
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "e2e", version: "1" } },
  });
  /** initialize, initialized, then get_agent_reputation of the fixtures' agent as request 2. */
  const sessionWithOneCall = () =>
    initialize +
    line({ method: "notifications/initialized" }) +
    line({
      id: 2,
      method: "tools/call",
      params: { name: "get_agent_reputation", arguments: { agent: stack.fixtures.agent } },
    });

  it("answers the requests sent before stdin closed, and stops quietly when the host stops reading stdout", async () => {
    // Given a host that sends a tool call and closes stdin at once
    // (spawned without blocking: the API the call reads is served by this test's process)
    const host = spawn("npx", ["-y", "@abas/mcp"], {
      cwd: installed.hostDir,
      env: { ...process.env, ...configEnv },
    });
    const closedAtOnce = { stdout: "", stderr: "" };
    host.stdout.on("data", (chunk: Buffer) => (closedAtOnce.stdout += chunk.toString("utf8")));
    host.stderr.on("data", (chunk: Buffer) => (closedAtOnce.stderr += chunk.toString("utf8")));
    host.stdin.end(sessionWithOneCall());
    const [status] = (await once(host, "close")) as [number | null];
    // Then the call is answered before the server exits
    assert.equal(status, 0, closedAtOnce.stderr);
    const answers = closedAtOnce.stdout
      .trim()
      .split("\n")
      .map((text) => JSON.parse(text) as { id: number; result?: { isError?: boolean } });
    assert.deepEqual(
      answers.map((answer) => [answer.id, answer.result?.isError ?? false]),
      [
        [1, false],
        [2, false],
      ],
      closedAtOnce.stdout,
    );

    // Given a host that no longer reads the server's stdout
    // (the installed bin run by node itself, so no npx process stands between them)
    const server = spawn(process.execPath, [installedBin()], {
      cwd: installed.hostDir,
      env: { ...process.env, ...configEnv },
    });
    let stderr = "";
    server.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    server.stdout.destroy();
    server.stdin.write(initialize);
    // Then the server stops without a crash
    const [code] = (await once(server, "exit")) as [number | null];
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stderr, /Unhandled 'error' event|EPIPE/);
  });

  it("stops once stdin is closed when the only request left was cancelled by the host", async () => {
    // Given an API that takes requests and never answers (a fault injected on purpose), so the
    // tool call is still waiting when the host cancels it and closes stdin
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    after(() => {
      silent.closeAllConnections();
      silent.close();
    });
    const host = spawn(process.execPath, [installedBin()], {
      cwd: installed.hostDir,
      env: {
        ...process.env,
        ...configEnv,
        ABAS_API_URL: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
      },
    });
    let stdout = "";
    let stderr = "";
    host.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    host.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    host.stdin.write(sessionWithOneCall());
    while (!/"id":1/.test(stdout)) await new Promise((resolve) => setTimeout(resolve, 20));
    host.stdin.end(
      line({ method: "notifications/cancelled", params: { requestId: 2, reason: "user stopped" } }),
    );
    // Then it exits with 0 before the API's 10 s timeout would have answered, with no answer to 2
    const started = Date.now();
    const [code] = (await once(host, "close")) as [number | null];
    assert.equal(code, 0, stderr);
    assert.ok(Date.now() - started < 5_000, `exited after ${Date.now() - started} ms`);
    assert.doesNotMatch(stdout, /"id":2/);
  });

  it("stops with exit code 2 and a clear message on an invalid setting", () => {
    for (const [name, value] of [
      ["ABAS_API_URL", "ftp://example.com"],
      ["ABAS_RPC_URL", "not a url"],
      ["ABAS_PROGRAM_ID", "0x1234"],
      ["ABAS_API_KEY", "sk-not-an-abas-key"],
      ["LOG_LEVEL", "loud"],
    ] as const) {
      let failure: { status: number; stdout: string; stderr: string } | undefined;
      try {
        execFileSync("npx", ["-y", "@abas/mcp"], {
          cwd: installed.hostDir,
          env: { ...process.env, ...configEnv, [name]: value },
          input: "",
          encoding: "utf8",
          stdio: ["pipe", "pipe", "pipe"],
        });
      } catch (error) {
        failure = error as typeof failure;
      }
      assert.equal(failure?.status, 2, `${name}=${value}`);
      assert.equal(failure.stdout, "", "nothing on stdout");
      assert.match(failure.stderr, new RegExp(`abas-mcp: invalid configuration: ${name}: `));
      if (name === "ABAS_API_KEY") assert.doesNotMatch(failure.stderr, /sk-not-an-abas-key/);
    }
  });

  it("answers --help and --version and exits; refuses any other argument with exit code 2", () => {
    const run = (...args: string[]) =>
      spawnSync("npx", ["-y", "@abas/mcp", ...args], {
        cwd: installed.hostDir,
        env: { ...process.env, ...configEnv },
        input: "",
        encoding: "utf8",
      });
    const help = run("--help");
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^Usage: abas-mcp \[--help \| --version\]\n/);
    assert.match(help.stdout, /Tools: get_agent_attestations, verify_action_hash, get_agent_reputation\./);
    for (const name of ["ABAS_API_URL", "ABAS_API_KEY", "ABAS_RPC_URL", "ABAS_PROGRAM_ID", "LOG_LEVEL"]) {
      assert.match(help.stdout, new RegExp(`^  ${name} `, "m"));
    }
    const version = run("--version");
    assert.equal(version.status, 0, version.stderr);
    const installedManifest = join(installed.hostDir, "node_modules/@abas/mcp/package.json");
    assert.equal(
      version.stdout,
      `${(JSON.parse(readFileSync(installedManifest, "utf8")) as { version: string }).version}\n`,
    );
    const unexpected = run("--api-url", "http://127.0.0.1:8080");
    assert.equal(unexpected.status, 2);
    assert.equal(unexpected.stdout, "");
    assert.match(
      unexpected.stderr,
      /^abas-mcp: unexpected arguments \["--api-url","http:\/\/127\.0\.0\.1:8080"\]; settings come from the environment\n\nUsage:/,
    );
  });

  it("without ABAS_API_KEY: starts, explains how to create a key, and still verifies from the ledger", async () => {
    const { fixtures } = stack;
    const keyless = await connect({
      ABAS_API_URL: stack.apiUrl,
      ABAS_RPC_URL: stack.rpcUrl,
      ABAS_API_KEY: "",
    });
    for (const [name, args] of [
      ["get_agent_attestations", { agent: fixtures.agent }],
      ["get_agent_reputation", { agent: fixtures.agent }],
      ["verify_action_hash", { actionHash: fixtures.plain.actionHash }],
    ] as const) {
      assertRecovers(
        await keyless.call(name, args),
        /no API key is configured/,
        /`npm run keys -- create --name mcp`/,
        /ABAS_API_KEY/,
      );
    }
    const fromLedger = verification(
      await keyless.call("verify_action_hash", { payload: fixtures.plainPayload, agent: fixtures.agent }),
    );
    // (an object payload is what the message's JSON parser read: the note says so and how to check a text)
    assert.deepEqual(
      [fromLedger.attested, fromLedger.notes],
      [
        true,
        [
          "The payload came as a JSON object or array, so it was hashed as this server's JSON parser read it from the MCP message: " +
            "a key the text repeats keeps its last value, and digits past a 64-bit float's precision are rounded. " +
            "To check an exact text, give the payload as a string: JSON that says more than its parsed value is then hashed only as written.",
        ],
      ],
    );
    const fromText = verification(
      await keyless.call("verify_action_hash", {
        payload: JSON.stringify(fixtures.plainPayload),
        agent: fixtures.agent,
      }),
    );
    assert.deepEqual([fromText.attested, fromText.notes], [true, []]);
    // A batch item needs the index to be found by agent alone, or its batchAddress
    const batchItem = verification(
      await keyless.call("verify_action_hash", { payload: fixtures.batchPayloads[0], agent: fixtures.agent }),
    );
    assert.deepEqual([batchItem.attested, batchItem.complete], [false, false]);
    assert.ok(
      batchItem.notes.some((note) => /Batch items were not searched: .*ABAS_API_KEY is not set/.test(note)),
    );
    assert.match(
      (
        await keyless.call("verify_action_hash", {
          payload: fixtures.batchPayloads[0],
          agent: fixtures.agent,
        })
      ).text,
      /^NOT FOUND, SEARCH INCOMPLETE\. .* this does not show that it was never attested\./,
    );
    const withBatchAddress = verification(
      await keyless.call("verify_action_hash", {
        payload: fixtures.batchPayloads[0],
        batchAddress: fixtures.batch.batchAddress,
      }),
    );
    assert.equal(withBatchAddress.attested, true);
  });

  it("with a key the API does not know: isError saying the key was refused and how to replace it", async () => {
    const unknownKey = await connect({ ...configEnv, ABAS_API_KEY: `abas_${"A".repeat(43)}` });
    assertRecovers(
      await unknownKey.call("get_agent_reputation", { agent: stack.fixtures.agent }),
      /refused ABAS_API_KEY/,
      /npm run keys -- create --name mcp/,
    );
  });

  it("with the ledger unreachable: isError naming ABAS_RPC_URL", async () => {
    const port = await refusedPort();
    const noLedger = await connect({ ...configEnv, ABAS_RPC_URL: `http://127.0.0.1:${port}` });
    assertRecovers(
      await noLedger.call("verify_action_hash", { payload: "x", agent: stack.fixtures.agent }),
      /ledger's JSON-RPC node did not answer/,
      new RegExp(`ABAS_RPC_URL=http://127\\.0\\.0\\.1:${port}`),
    );
  });

  it("never shows a key in ABAS_RPC_URL: not in answers, Explorer links or its log", async () => {
    const { fixtures } = stack;
    const secret = "rpc-secret-0123456789";
    const withKey = await connect({
      ...configEnv,
      ABAS_RPC_URL: `${stack.rpcUrl}/${secret}?api-key=${secret}`,
    });
    const answers = [
      await withKey.call("verify_action_hash", { payload: fixtures.plainPayload }),
      await withKey.call("get_agent_attestations", { agent: fixtures.agent }),
    ];
    for (const answer of answers) {
      assert.doesNotMatch(JSON.stringify(answer), new RegExp(secret));
    }
    assert.match(answers[0]!.text, /ledger \(http:\/\/127\.0\.0\.1:\d+\/\[hidden\]\?\[hidden\]\)/);
    await withKey.close();
    assert.doesNotMatch(withKey.stderr(), new RegExp(secret));
  });

  it("with the API down: isError asking whether `npm start` is running, with ABAS_API_URL", async () => {
    // Given a server configured for a port where nothing listens
    const port = await refusedPort();
    const elsewhere = await connect({ ...configEnv, ABAS_API_URL: `http://127.0.0.1:${port}` });
    assertRecovers(
      await elsewhere.call("get_agent_attestations", { agent: stack.fixtures.agent }),
      /The ABAS REST API did not answer/,
      /Is `npm start` running\?/,
      new RegExp(`ABAS_API_URL=http://127\\.0\\.0\\.1:${port}`),
    );
    // And when the running service stops under a connected server
    await stack.stop();
    for (const [name, args] of [
      ["get_agent_attestations", { agent: stack.fixtures.agent }],
      ["get_agent_reputation", { agent: stack.fixtures.agent }],
      ["verify_action_hash", { payload: "x" }],
    ] as const) {
      assertRecovers(await mcp.call(name, args), /Is `npm start` running\?/, /ABAS_API_URL=/);
    }
  });
});
