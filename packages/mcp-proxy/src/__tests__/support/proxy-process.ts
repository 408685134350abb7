/**
 * How the tests start the proxy: its real bin through tsx, as a host's `mcp-config.json` does,
 * and the official MCP client talking to it over stdio.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

import type { LedgerAndAgent } from "./ledger-and-agent.js";

const require = createRequire(import.meta.url);

export const PROXY_BIN = fileURLToPath(new URL("../../bin.ts", import.meta.url));
export const TSX_LOADER = import.meta.resolve("tsx");
export const EVERYTHING_SERVER = require.resolve("@modelcontextprotocol/server-everything/dist/index.js");
export const FILESYSTEM_SERVER = require.resolve("@modelcontextprotocol/server-filesystem/dist/index.js");

/** `node --import tsx bin.ts <proxyArgs> -- <server...>`. */
export function proxyCommand(proxyArgs: readonly string[], server: readonly string[]): string[] {
  return [process.execPath, "--import", TSX_LOADER, PROXY_BIN, ...proxyArgs, "--", ...server];
}

/** The proxy options of a test: its ledger, agent, and folders (the default queue folders without `queueDir`). */
export function proxyOptions(
  setup: LedgerAndAgent,
  folders: { queueDir?: string; receiptsDir: string },
  extra: readonly string[] = [],
): string[] {
  return [
    "--rpc-url",
    setup.rpcUrl,
    "--program-id",
    setup.programId,
    "--agent-keypair",
    setup.agentKeypairFile,
    "--operator-keypair",
    setup.operatorKeypairFile,
    ...(folders.queueDir === undefined ? [] : ["--queue-dir", folders.queueDir]),
    "--receipts-dir",
    folders.receiptsDir,
    "--max-batch-delay-ms",
    "200",
    ...extra,
  ];
}

export function childEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

export type ConnectedClient = Readonly<{
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
}>;

/** The official MCP client, connected (initialize done) through a process started with `command`. */
export async function connectClient(
  command: readonly string[],
  env: Record<string, string> = {},
): Promise<ConnectedClient> {
  const transport = new StdioClientTransport({
    command: command[0]!,
    args: command.slice(1),
    env: { ...childEnv(), ...env },
    stderr: "pipe",
  });
  let logs = "";
  transport.stderr?.on("data", (chunk: Buffer) => (logs += chunk.toString("utf8")));
  const client = new Client({ name: "abas-proxy-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport, stderr: () => logs };
}

/** The queue folder a proxy names on its first line of stderr. */
export async function queueFolderOf(connected: ConnectedClient): Promise<string> {
  for (let waited = 0; waited < 30_000; waited += 20) {
    const match = /, queue (\S+), receipts/.exec(connected.stderr());
    if (match !== null) return match[1]!;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`the proxy named no queue folder: ${connected.stderr()}`);
}

/** The proxy records an echo call with `message`, then is killed with SIGKILL before sending it. */
export async function recordThenKill(proxy: ConnectedClient, message: string): Promise<void> {
  await proxy.client.callTool({ name: "echo", arguments: { message } });
  process.kill(proxy.transport.pid!, "SIGKILL");
  await proxy.client.close().catch(() => {});
}
