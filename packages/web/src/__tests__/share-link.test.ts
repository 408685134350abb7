/**
 * The share link as a blink client meets it: GET of /api/actions/verify?tx=… answers an
 * ActionGetResponse (checked at compile time against @solana/actions-spec and at run time field by
 * field) with the Actions CORS headers, X-Action-Version and the ledger's CAIP-2 id in
 * X-Blockchain-Ids, refusals included, after a CORS preflight that always passes;
 * /actions.json maps the receipt pages to it; the icon is a PNG receipt card.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import type { ActionGetResponse, ActionsJson, LinkedAction } from "@solana/actions-spec";
import { PNG } from "pngjs";

import {
  ActionType,
  actionTypesMask,
  buildAttestBatchInstruction,
  buildBatchMessage,
  buildEd25519VerifyInstruction,
  buildPublishBatchLeavesInstruction,
  computeLeafHash,
  computeMerkleRoot,
  signMessageWithKeyPair,
  type LeafData,
} from "@abas/program-client";
import { AttestationClient, hashAction, sendAndConfirmTransaction } from "@abas/sdk";
import { createKeyPairSignerFromBytes, createSolanaRpc } from "@solana/kit";

import { generateTestKey, ledgerRpc } from "./support/keys.js";
import { startSeededStack, waitFor, type SeededStack } from "./support/stack.js";

const SCREENSHOTS = fileURLToPath(new URL("../../../../docs/screenshots/", import.meta.url));

let stack: SeededStack;
let blockchainId: string;

before(async () => {
  stack = await startSeededStack();
  const genesisHash = await ledgerRpc<string>(stack.rpcUrl, "getGenesisHash");
  blockchainId = `solana:${genesisHash.slice(0, 32)}`;
});
after(async () => stack?.stop());

/** Every field of an ActionGetResponse, checked at run time the way a blink client reads it. */
function assertActionGetResponse(body: unknown): asserts body is ActionGetResponse {
  assert.equal(typeof body, "object");
  const action = body as Record<string, unknown>;
  assert.equal(action.type, "action");
  for (const field of ["icon", "title", "description", "label"]) {
    assert.equal(typeof action[field], "string", `${field} is a string`);
    assert.ok((action[field] as string).length > 0, `${field} is not empty`);
  }
  assert.match(action.icon as string, /^https?:\/\//, "icon is an absolute http(s) URL");
  if (action.disabled !== undefined) assert.equal(typeof action.disabled, "boolean");
  if (action.error !== undefined)
    assert.equal(typeof (action.error as { message?: unknown }).message, "string");
  if (action.links !== undefined) {
    const { actions } = action.links as { actions: LinkedAction[] };
    assert.ok(Array.isArray(actions));
    for (const link of actions) {
      assert.ok(["transaction", "message", "post", "external-link"].includes(link.type));
      assert.equal(typeof link.href, "string");
      assert.equal(typeof link.label, "string");
    }
  }
  const known = new Set(["type", "icon", "title", "description", "label", "disabled", "links", "error"]);
  assert.deepEqual(
    Object.keys(action).filter((key) => !known.has(key)),
    [],
    "no field outside the specification",
  );
}

function assertActionHeaders(headers: Headers): void {
  assert.equal(headers.get("access-control-allow-origin"), "*");
  assert.equal(headers.get("access-control-allow-methods"), "GET,POST,PUT,OPTIONS");
  const allowed = (headers.get("access-control-allow-headers") ?? "").toLowerCase();
  for (const header of ["content-type", "authorization", "content-encoding", "accept-encoding"]) {
    assert.ok(allowed.includes(header), `Access-Control-Allow-Headers names ${header}`);
  }
  assert.match(headers.get("access-control-expose-headers") ?? "", /X-Action-Version/);
  assert.equal(headers.get("x-action-version"), "2.4");
  assert.equal(headers.get("x-blockchain-ids"), blockchainId);
}

async function getAction(query: string, method = "GET"): Promise<{ response: Response; body: unknown }> {
  const response = await fetch(`${stack.origin}/api/actions/verify${query}`, { method });
  return { response, body: await response.json() };
}

describe("the share link of an attestation", () => {
  test("GET answers an Action that describes the receipt and its ledger verification", async () => {
    // Given a single attestation recorded by the SDK
    const { txSignature, agent, actionHash } = stack.plain;

    // When a blink client fetches its share link
    const { response, body } = await getAction(`?tx=${txSignature}`);

    // Then it is a JSON ActionGetResponse with every required field
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
    assertActionGetResponse(body);
    const action = body satisfies ActionGetResponse;
    // And it names the agent, the action type, the hash, the time and the verification status
    assert.match(action.description, new RegExp(agent));
    assert.match(action.description, /ToolCall/);
    assert.match(action.description, new RegExp(actionHash));
    assert.match(action.description, /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/);
    assert.match(action.description, /Verified on the Solana ledger/);
    assert.equal(action.label, "Verified on the ledger");
    // And its button is disabled: the links open the explorer and the receipt page
    assert.equal(action.disabled, true);
    const [explorer, page] = action.links!.actions;
    assert.equal(explorer?.type, "external-link");
    assert.match(
      explorer!.href,
      new RegExp(`^https://explorer\\.solana\\.com/tx/${txSignature}\\?cluster=custom`),
    );
    assert.equal(page?.href, `${stack.origin}/app/attestations/${stack.plain.attestationAddress}`);
    assert.equal(action.icon, `${stack.origin}/api/actions/verify/card.png?tx=${txSignature}`);
    // And the Actions headers are there
    assertActionHeaders(response.headers);
  });

  test("the CORS preflight passes whatever the query and path, so a browser can read refusals too", async () => {
    const unknown = "5".repeat(87);
    for (const path of [
      `/api/actions/verify?tx=${stack.plain.txSignature}`,
      "/api/actions/verify?tx=not-a-signature",
      "/api/actions/verify",
      "/api/actions/verify/garbage",
      `/api/actions/verify/card.png?tx=${unknown}`,
      "/api/actions/nothing-here",
      "/actions.json",
    ]) {
      // When a blink client in a browser on another origin asks with X-Accept-Action-Version,
      // the browser first sends this preflight
      const response = await fetch(`${stack.origin}${path}`, {
        method: "OPTIONS",
        headers: {
          origin: "https://blink-client.example",
          "access-control-request-method": "GET",
          "access-control-request-headers": "x-accept-action-version",
        },
      });

      // Then it passes: a 2xx status allowing any origin and that header
      assert.equal(response.status, 204, path);
      assertActionHeaders(response.headers);
      assert.match(response.headers.get("access-control-allow-headers") ?? "", /X-Accept-Action-Version/);
      assert.equal(await response.text(), "");
    }
  });

  test("HEAD answers the headers of GET without a body", async () => {
    for (const path of [`/api/actions/verify?tx=${stack.plain.txSignature}`, "/actions.json"]) {
      const response = await fetch(`${stack.origin}${path}`, { method: "HEAD" });
      assert.equal(response.status, 200, path);
      assertActionHeaders(response.headers);
      assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
      assert.equal(await response.text(), "");
    }
  });

  test("a batch transaction is described as the batch it committed", async () => {
    // Given a batch of three actions
    const { txSignature, merkleRoot } = stack.batch;

    // When its transaction's share link is fetched
    const { response, body } = await getAction(`?tx=${txSignature}`);

    // Then the Action describes the batch, verified against the ledger
    assert.equal(response.status, 200);
    assertActionGetResponse(body);
    assert.match(body.description, /batch of 3 actions \(Decision ×1, ToolCall ×1, Transaction ×1\)/);
    assert.match(body.description, new RegExp(merkleRoot));
    assert.match(body.description, /Verified on the Solana ledger/);
  });

  test("a transaction that commits two agents' batches: its link and page speak for the first batch and name the other apart", async () => {
    // Given one transaction with agent A's batch of 1 Decision and agent B's batch of 3 Transactions
    // (the program takes both: each attest_batch checks the signature just before it)
    const operator = await createKeyPairSignerFromBytes(stack.operator.secretKey);
    const rpc = createSolanaRpc(stack.rpcUrl);
    const settings = {
      rpc,
      programId: stack.client.programId,
      commitment: "confirmed",
      computeUnitMargin: 1.2,
      confirmationTimeoutMs: 30_000,
      maxSendAttempts: 3,
    } as const;
    const committed = await Promise.all(
      [
        { texts: ["A: a harmless decision"], actionType: ActionType.Decision },
        { texts: ["B: transfer 1", "B: transfer 2", "B: transfer 3"], actionType: ActionType.Transaction },
      ].map(async ({ texts, actionType }) => {
        const agentKey = generateTestKey();
        await new AttestationClient({ rpcUrl: stack.rpcUrl, agentKeypair: agentKey.secretKey }).registerAgent(
          {
            operatorKeypair: stack.operator.secretKey,
          },
        );
        const agent = await createKeyPairSignerFromBytes(agentKey.secretKey);
        const leaves: LeafData[] = await Promise.all(
          texts.map(async (text) => ({
            actionType,
            privacyMode: false,
            storedHash: Buffer.from(await hashAction(text), "hex"),
          })),
        );
        const merkleRoot = computeMerkleRoot(leaves.map(computeLeafHash));
        const batch = {
          programId: settings.programId,
          agent: agent.address,
          itemCount: leaves.length,
          actionTypes: actionTypesMask([actionType]),
          merkleRoot,
        };
        const signature = await signMessageWithKeyPair(agent.keyPair, buildBatchMessage(batch));
        return {
          agent: agent.address,
          leaves,
          merkleRoot,
          instructions: [
            buildEd25519VerifyInstruction({
              publicKey: agent.address,
              signature,
              message: buildBatchMessage(batch),
            }),
            await buildAttestBatchInstruction({ ...batch, operator }),
          ],
        };
      }),
    );
    const [a, b] = committed as [(typeof committed)[0], (typeof committed)[0]];
    const { signature } = await sendAndConfirmTransaction(settings, {
      feePayer: operator,
      instructions: [...a.instructions, ...b.instructions],
    });
    for (const batch of [a, b]) {
      await sendAndConfirmTransaction(settings, {
        feePayer: operator,
        instructions: [
          await buildPublishBatchLeavesInstruction({
            programId: settings.programId,
            operator,
            agent: batch.agent,
            merkleRoot: batch.merkleRoot,
            startIndex: 0,
            leaves: batch.leaves,
          }),
        ],
      });
    }
    await waitFor(async () => {
      const { body } = await getAction(`?tx=${signature}`);
      return (body as { label?: string }).label === "Verified on the ledger";
    }, "the indexer to record both batches and the link to verify");

    // When the transaction's share link and page are fetched
    const { body } = await getAction(`?tx=${signature}`);
    const page = await (await fetch(`${stack.origin}/app/attestations/${signature}`)).text();

    // Then the link credits agent A with its own batch of 1 only, and names B's 3 as others
    assertActionGetResponse(body);
    assert.match(
      body.description,
      new RegExp(`^Agent ${a.agent} attested a batch of 1 action \\(Decision ×1\\)`),
    );
    assert.match(
      body.description,
      /The same transaction recorded 3 other attestations \(Transaction ×3\), which this receipt does not cover\.$/,
    );
    assert.doesNotMatch(body.description, new RegExp(b.agent));
    // And the page's verdict is about A's batch, with B's items apart
    assert.match(page, /<h1>Batch of 1 attested action<\/h1>/);
    assert.match(page, /Other attestations in this transaction/);
    assert.equal(page.split(`/app/agents/${b.agent}`).length - 1, 3, "B's three items, each with its agent");
  });

  test("a privacy-mode attestation shows its commitment, not an action hash", async () => {
    const { body } = await getAction(`?tx=${stack.privateReceipt.txSignature}`);
    assertActionGetResponse(body);
    assert.match(
      body.description,
      new RegExp(`Commitment \\(privacy mode\\) ${stack.privateReceipt.storedHash}`),
    );
    assert.doesNotMatch(body.description, new RegExp(stack.privateReceipt.actionHash));
  });

  test("an unknown transaction is an Action with an error, disabled", async () => {
    // Given a well-formed signature of no ABAS transaction
    const unknown = "5".repeat(87);

    // When its share link is fetched
    const { response, body } = await getAction(`?tx=${unknown}`);

    // Then it is still an Action, disabled, with an error message
    assert.equal(response.status, 200);
    assertActionGetResponse(body);
    assert.equal(body.disabled, true);
    assert.match(body.error?.message ?? "", /No ABAS attestation is recorded under/);
    assertActionHeaders(response.headers);
  });

  test("a malformed or missing reference is a 400 { message, code }, with the Actions headers", async () => {
    for (const [query, code] of [
      ["?tx=not-a-signature", "invalid-reference"],
      ["?tx=0OIl", "invalid-reference"],
      [`?tx=${"1".repeat(200)}`, "invalid-reference"],
      [`?tx=${stack.plain.txSignature}&tx=${stack.plain.txSignature}`, "invalid-reference"],
      [`?tx=${stack.plain.txSignature}&id=${stack.plain.attestationAddress}`, "invalid-reference"],
      ["?id=not-an-id", "invalid-reference"],
      ["", "missing-reference"],
    ] as const) {
      // When the link carries no valid reference
      const response = await fetch(`${stack.origin}/api/actions/verify${query}`);

      // Then the answer is 400 { message, code }, still with the Actions headers
      assert.equal(response.status, 400, query);
      const body = (await response.json()) as { message?: unknown; code?: unknown };
      assert.deepEqual(Object.keys(body), ["message", "code"], query);
      assert.equal(typeof body.message, "string");
      assert.equal(body.code, code, query);
      assertActionHeaders(response.headers);
    }
    const byPath = await fetch(`${stack.origin}/api/actions/verify/garbage`);
    assert.equal(byPath.status, 400);
    assert.equal(((await byPath.json()) as { code: string }).code, "invalid-reference");
    assertActionHeaders(byPath.headers);
  });

  test("another method is a 405 naming the ones answered, another path a 404, both with the Actions headers", async () => {
    for (const method of ["POST", "PUT", "DELETE"]) {
      const response = await fetch(`${stack.origin}/api/actions/verify?tx=${stack.plain.txSignature}`, {
        method,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ account: stack.plain.agent }),
      });
      assert.equal(response.status, 405, method);
      assert.equal(response.headers.get("allow"), "GET, HEAD, OPTIONS");
      assertActionHeaders(response.headers);
      assert.deepEqual(await response.json(), {
        message: `This Action only describes a receipt: ${method} is not answered, GET is.`,
        code: "method-not-allowed",
      });
    }
    for (const method of ["GET", "POST"]) {
      const response = await fetch(`${stack.origin}/api/actions/nothing-here?tx=1`, { method });
      assert.equal(response.status, 404, method);
      assertActionHeaders(response.headers);
      assert.deepEqual(await response.json(), {
        message: "There is no Action at /api/actions/nothing-here.",
        code: "not-found",
      });
    }
  });
});

describe("actions.json", () => {
  test("maps the receipt pages to the Action API, with the Actions headers", async () => {
    // When a blink client reads the site's actions.json
    const response = await fetch(`${stack.origin}/actions.json`);

    // Then its rules map /app/attestations/* to the verify Action
    assert.equal(response.status, 200);
    assertActionHeaders(response.headers);
    const body = (await response.json()) as ActionsJson;
    assert.ok(Array.isArray(body.rules));
    const { rules } = body satisfies ActionsJson;
    assert.deepEqual(rules[0], { pathPattern: "/app/attestations/*", apiPath: "/api/actions/verify/*" });
  });

  test("the mapped path answers the Action of that attestation", async () => {
    // Given a receipt page path, /app/attestations/<batch address>:<index>, mapped by the rule
    const id = `${stack.batch.batchAddress}:1`;

    // When a client follows the rule
    const response = await fetch(`${stack.origin}/api/actions/verify/${id}`);

    // Then it gets that item's Action
    assert.equal(response.status, 200);
    assertActionHeaders(response.headers);
    const body: unknown = await response.json();
    assertActionGetResponse(body);
    assert.match(body.description, /ToolCall action as item 2 of a batch/);
    assert.equal(body.icon, `${stack.origin}/api/actions/verify/card.png?id=${encodeURIComponent(id)}`);
  });
});

describe("the receipt card", () => {
  test("is an 800 × 800 PNG rendered by the server", async () => {
    // When the icon of the share link is fetched
    const response = await fetch(`${stack.origin}/api/actions/verify/card.png?tx=${stack.plain.txSignature}`);

    // Then it is a PNG that decodes to the expected size
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "image/png");
    const bytes = Buffer.from(await response.arrayBuffer());
    const png = PNG.sync.read(bytes);
    assert.equal(png.width, 800);
    assert.equal(png.height, 800);
    // And it is drawn: the verified card's top band is green, its body white
    const pixel = (x: number, y: number) => [...png.data.subarray((y * 800 + x) * 4, (y * 800 + x) * 4 + 3)];
    assert.deepEqual(pixel(400, 46), [0x0f, 0x7a, 0x3a]);
    assert.deepEqual(pixel(400, 600), [255, 255, 255]);
    mkdirSync(SCREENSHOTS, { recursive: true });
    writeFileSync(`${SCREENSHOTS}share-card.png`, bytes);
  });

  test("an unknown transaction gets a 'not found' card, a malformed one a 400", async () => {
    const unknown = await fetch(`${stack.origin}/api/actions/verify/card.png?tx=${"5".repeat(87)}`);
    assert.equal(unknown.status, 200);
    const png = PNG.sync.read(Buffer.from(await unknown.arrayBuffer()));
    assert.equal(png.width, 800);
    const malformed = await fetch(`${stack.origin}/api/actions/verify/card.png?tx=nope`);
    assert.equal(malformed.status, 400);
    assert.equal(((await malformed.json()) as { code: unknown }).code, "invalid-reference");
  });
});
