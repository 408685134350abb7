/**
 * The proxy's reading of a response agrees with the official MCP client's own schemas: a response
 * the proxy records is one the client takes, and one it refuses is one the client drops.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { isJSONRPCErrorResponse, isJSONRPCResultResponse } from "@modelcontextprotocol/sdk/types.js";

import { whyHostDropsResponse } from "../host-reading.js";

const RESPONSES: Record<string, unknown>[] = [
  { jsonrpc: "2.0", id: 1, result: {} },
  { jsonrpc: "2.0", id: "a", result: { content: [{ type: "text", text: "x" }], isError: true } },
  { jsonrpc: "2.0", id: 1, result: { _meta: { progressToken: "t", other: [1] } } },
  { jsonrpc: "2.0", id: 1, result: { _meta: { progressToken: 7 } } },
  { jsonrpc: "2.0", id: 1, result: { _meta: { "io.modelcontextprotocol/related-task": { taskId: "t" } } } },
  { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "bad", data: { any: [1] } } },
  { jsonrpc: "2.0", id: 1, error: { code: 5, message: "", extra: true } },
  { jsonrpc: "2.0", error: { code: -32700, message: "parse" } },
  { jsonrpc: "2.0", id: -0, result: {} },
  // dropped
  { jsonrpc: "1.0", id: 1, result: {} },
  { jsonrpc: 2, id: 1, result: {} },
  { id: 1, result: {} },
  { jsonrpc: "2.0", id: 1, result: {}, note: 1 },
  { jsonrpc: "2.0", id: 1, result: {}, error: null },
  { jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "x" } },
  { jsonrpc: "2.0", id: 1 },
  { jsonrpc: "2.0", id: 1, result: null },
  { jsonrpc: "2.0", id: 1, result: "done" },
  { jsonrpc: "2.0", id: 1, result: [] },
  { jsonrpc: "2.0", id: 1, result: { _meta: null } },
  { jsonrpc: "2.0", id: 1, result: { _meta: [] } },
  { jsonrpc: "2.0", id: 1, result: { _meta: { progressToken: 1.5 } } },
  { jsonrpc: "2.0", id: 1, result: { _meta: { progressToken: null } } },
  { jsonrpc: "2.0", id: 1, result: { _meta: { "io.modelcontextprotocol/related-task": { taskId: 1 } } } },
  { jsonrpc: "2.0", id: 1.5, result: {} },
  { jsonrpc: "2.0", id: 2 ** 53, result: {} },
  { jsonrpc: "2.0", id: null, result: {} },
  { jsonrpc: "2.0", id: 1, error: null },
  { jsonrpc: "2.0", id: 1, error: "failed" },
  { jsonrpc: "2.0", id: 1, error: { code: 1.5, message: "x" } },
  { jsonrpc: "2.0", id: 1, error: { code: "1", message: "x" } },
  { jsonrpc: "2.0", id: 1, error: { code: 1 } },
  { jsonrpc: "2.0", id: 1, error: { code: 1, message: 2 } },
  { jsonrpc: "2.0", id: null, error: { code: 1, message: "x" } },
];

describe("whyHostDropsResponse", () => {
  for (const response of RESPONSES) {
    const takes = isJSONRPCResultResponse(response) || isJSONRPCErrorResponse(response);
    it(`${takes ? "takes" : "drops"} ${JSON.stringify(response)}, as the official client does`, () => {
      const reason = whyHostDropsResponse(response);
      assert.equal(reason === undefined, takes, reason);
    });
  }

  it("names a value it cannot read by its kind, never by its text", () => {
    let deep: unknown = [];
    for (let level = 0; level < 100_000; level++) deep = [deep];
    assert.equal(
      whyHostDropsResponse({ jsonrpc: deep, id: 1, result: {} }),
      'its "jsonrpc" is an array, not "2.0"',
    );
  });
});
