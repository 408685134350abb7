/**
 * The JSON-RPC batch transport: against the real ledger, a batch's results come back in the order
 * of the calls; against an HTTP server that misbehaves on purpose (a fault injected, as a broken or
 * overloaded RPC provider would), every partial or failed batch is a JsonRpcBatchError, never a
 * result with holes.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { JsonRpcBatchError, sendJsonRpcBatch } from "../json-rpc-batch.js";
import { misbehavingServer, type Request } from "./support/misbehaving-rpc.js";
import { startTestLedger, type TestLedger } from "./support/test-ledger.js";

const calls = [0, 1, 2].map(() => ({ method: "getSlot", params: [] }));

describe("sendJsonRpcBatch", () => {
  let ledger: TestLedger;
  before(async () => {
    ledger = await startTestLedger();
  });
  after(async () => {
    await ledger?.dispose();
  });

  it("returns the results of a batch sent to the ledger in the order of the calls", async () => {
    const [balance, slot, missing] = await sendJsonRpcBatch(ledger.rpcUrl, [
      { method: "getBalance", params: [ledger.programId] },
      { method: "getSlot", params: [] },
      { method: "getTransaction", params: ["1".repeat(64), { encoding: "json" }] },
    ]);
    assert.equal(typeof (balance as { value: number }).value, "number");
    assert.equal(typeof slot, "number");
    assert.equal(missing, null);
  });

  it("matches answers to calls by id when the server answers out of order", async () => {
    const server = await misbehavingServer((requests) => ({
      body: JSON.stringify(requests.reverse().map(({ id }) => ({ jsonrpc: "2.0", id, result: id * 10 }))),
    }));
    try {
      assert.deepEqual(await sendJsonRpcBatch(server.url, calls), [0, 10, 20]);
    } finally {
      await server.close();
    }
  });

  const faults: [string, (requests: Request[]) => { status?: number; body: string }, RegExp][] = [
    [
      "a call left unanswered",
      (requests) => ({
        body: JSON.stringify(requests.slice(1).map(({ id }) => ({ jsonrpc: "2.0", id, result: 1 }))),
      }),
      /1 calls of a batch of 3 getSlot calls were not answered/,
    ],
    [
      "a call answered with an error",
      (requests) => ({
        body: JSON.stringify(
          requests.map(({ id }) =>
            id === 2
              ? { jsonrpc: "2.0", id, error: { code: -32005, message: "node is behind" } }
              : { jsonrpc: "2.0", id, result: 1 },
          ),
        ),
      }),
      /call 2 of a batch of 3 getSlot calls failed: node is behind \(code -32005\)/,
    ],
    [
      "one error for the whole batch",
      () => ({
        body: JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "no batches" } }),
      }),
      /was not answered as a batch: no batches \(code -32600\)/,
    ],
    ["an HTTP error", () => ({ status: 503, body: "overloaded" }), /failed: HTTP 503 overloaded/],
    ["a body that is not JSON", () => ({ body: "<html>" }), /something that is not JSON: <html>/],
  ];
  for (const [fault, answer, message] of faults) {
    it(`fails the whole batch with JsonRpcBatchError on ${fault}`, async () => {
      const server = await misbehavingServer(answer);
      try {
        await assert.rejects(sendJsonRpcBatch(server.url, calls), (error: unknown) => {
          assert.ok(error instanceof JsonRpcBatchError);
          assert.equal(error.name, "JsonRpcBatchError");
          assert.match(error.message, message);
          return true;
        });
      } finally {
        await server.close();
      }
    });
  }
});
