// A stdio MCP server that misbehaves on purpose, as `process.argv[2]` says (the faults the tests of
// `abas mcp` inject): it answers `initialize`, then
//   cursor-loop   answers tools/list with the same next cursor, page after page;
//   bad-answer    answers tools/call with a line that is not a JSON-RPC message, then exits with 5;
//   huge-answer   answers tools/call with a line over 10 MB, and exits once its stdin closes.
import process from "node:process";
import { createInterface } from "node:readline";

const mode = process.argv[2];
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);

for await (const line of createInterface({ input: process.stdin })) {
  const request = JSON.parse(line);
  if (request.method === "initialize") {
    send({
      id: request.id,
      result: {
        protocolVersion: request.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "scripted", version: "1.0.0" },
      },
    });
  } else if (request.method === "tools/list" && mode === "cursor-loop") {
    send({
      id: request.id,
      result: { tools: [{ name: "t", inputSchema: { type: "object" } }], nextCursor: "again" },
    });
  } else if (request.method === "tools/call" && mode === "bad-answer") {
    process.stdout.write(`{"jsonrpc":"2.0","id":${request.id},"result":null}\n`, () => process.exit(5));
  } else if (request.method === "tools/call" && mode === "huge-answer") {
    process.stdout.write(`${"x".repeat(11 * 1024 * 1024)}\n`);
  }
}
