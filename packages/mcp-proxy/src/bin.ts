#!/usr/bin/env node
/**
 * `abas-mcp-proxy [options] -- <MCP server command> [args...]`: stdout carries only the protocol,
 * logs go to stderr. Exits as the server exits: its code, or its signal raised again.
 */
import { constants } from "node:os";

import { isAbasError } from "@abas/errors";

import { parseProxyConfig, PROXY_USAGE } from "./proxy-config.js";
import { describeError } from "./describe-error.js";
import { runProxy } from "./proxy.js";

const log = (line: string): void => void process.stderr.write(`abas-mcp-proxy: ${line}\n`);

function fail(error: unknown, hint?: string): never {
  log(
    isAbasError(error) || !(error instanceof Error) ? describeError(error) : (error.stack ?? error.message),
  );
  if (hint !== undefined) log(hint);
  process.exit(1);
}

let parsed: ReturnType<typeof parseProxyConfig>;
try {
  parsed = parseProxyConfig(process.argv.slice(2), process.env);
} catch (error) {
  fail(error, "abas-mcp-proxy --help lists every option with its environment variable");
}
if (parsed.help) {
  process.stderr.write(`${PROXY_USAGE}\n`);
  process.exit(0);
}

// The host stops the proxy; the server is the one to stop (with SIGKILL if it ignores the signal),
// and the proxy follows it.
let server: { stop(signal: NodeJS.Signals): void } | undefined;
// Once the server has exited the proxy is only flushing: a signal then stops it (the queue keeps the rest).
let serverExited = false;
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    if (server === undefined || serverExited) process.exit(128 + constants.signals[signal]);
    server.stop(signal);
  });
}
process.stdout.on("error", () => {}); // the host went away: stdin ends too, and the proxy shuts down

try {
  const exit = await runProxy(parsed.config, {
    input: process.stdin,
    output: process.stdout,
    log,
    onServerStarted: (started) => (server = started),
    onServerExited: () => (serverExited = true),
  });
  if (exit.signal !== null) {
    process.removeAllListeners(exit.signal);
    process.kill(process.pid, exit.signal);
  }
  process.exit(exit.code ?? 1);
} catch (error) {
  fail(error);
}
