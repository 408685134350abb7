/**
 * A small real stdio MCP server for the signal tests: it answers initialize, tools/list and an
 * `echo` tool, and appends to a file each signal it receives and the end of its stdin, so a test
 * can read what reached it through the proxy.
 *
 *   node --import tsx signal-recording-server.ts <record file> <on signal> <on stdin end>
 *
 * <on signal>: "exit" exits with 100 + the signal's number; "die" dies of the signal; "ignore" runs on.
 * <on stdin end>: "exit" exits 0; "linger" keeps running (until a signal ends it).
 */
import { appendFileSync } from "node:fs";
import { constants } from "node:os";
import { createInterface } from "node:readline";

import { initializeResult } from "./initialize-result.js";

const [recordFile, onSignal, onStdinEnd] = process.argv.slice(2);
if (
  recordFile === undefined ||
  !["exit", "die", "ignore"].includes(onSignal!) ||
  !["exit", "linger"].includes(onStdinEnd!)
) {
  process.stderr.write("usage: signal-recording-server.ts <record file> <exit|die|ignore> <exit|linger>\n");
  process.exit(2);
}

const note = (event: string): void => appendFileSync(recordFile, `${event}\n`);

for (const signal of ["SIGTERM", "SIGHUP", "SIGINT"] as const) {
  process.on(signal, () => {
    note(signal);
    if (onSignal === "ignore") return;
    if (onSignal === "exit") process.exit(100 + constants.signals[signal]);
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  });
}

const reply = (id: unknown, result: unknown): void =>
  void process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`);

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line) as { id?: unknown; method?: string; params?: Record<string, unknown> };
  if (message.id === undefined) return; // a notification
  if (message.method === "initialize") {
    reply(message.id, initializeResult(message.params, "signal-recording-server"));
  } else if (message.method === "tools/list") {
    reply(message.id, {
      tools: [
        {
          name: "echo",
          description: "Returns its message",
          inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
        },
      ],
    });
  } else if (message.method === "tools/call") {
    const { message: text } = (message.params?.arguments ?? {}) as { message?: string };
    reply(message.id, { content: [{ type: "text", text: `Echo: ${text}` }] });
  } else {
    process.stdout.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } })}\n`,
    );
  }
});
lines.on("close", () => {
  note("stdin closed");
  if (onStdinEnd === "exit") process.exit(0);
  setInterval(() => {}, 60_000); // lingers until a signal ends it
});
process.stderr.write("signal-recording-server ready\n");
