/**
 * `abas mcp tools|call`: runs one server of a model host's MCP configuration as the host would and
 * lists its tools or calls one, so a setup (such as `abas-mcp-proxy` in front of a server) can be
 * tried without a host.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";

import { printResult, type CommandContext } from "../cli-io.js";
import { readServerEntry, type ServerEntry } from "../mcp-config.js";
import { ServerProcessTransport } from "../mcp-server-process.js";
import { parseOptions } from "../parse-options.js";
import { reportFailure } from "../report-error.js";
import { table } from "../text-table.js";
import { CommandFailure, UsageError } from "../usage-error.js";
import type { Command } from "./command.js";

/** How long a request may take, the server's start (npx fetching it, say) included. */
const REQUEST_TIMEOUT_MS = 120_000;
/** How long the server has to exit once its stdin is closed (abas-mcp-proxy sends its batches). */
const EXIT_GRACE_MS = 30_000;

const USAGE = `Usage:
  abas mcp tools <mcp-config.json> <server>
  abas mcp call <mcp-config.json> <server> <tool> [--args <json object>]

  Starts the server named in a model host's MCP configuration ({ "mcpServers": { "<server>":
  { "command", "args", "env" } } }) as the host would, with the official MCP client, then:
  tools    lists its tools with their descriptions
  call     calls one tool and prints the text of its result (--json: the whole result);
           exit code 1 when the tool reports an error
  --args   the tool's arguments, a JSON object (default {})

  Once it has printed the outcome, it closes the server's stdin and waits up to ${EXIT_GRACE_MS / 1000} s for
  it to exit, so that an abas-mcp-proxy in front of the server sends the calls it recorded and saves
  their receipts before the command returns. The server's settings (the proxy's ledger, say) are
  those of its entry: its "args" and "env".

Options:
  --json       print one JSON document on stdout and nothing else
  -h, --help   this help`;

/** The global options that name a ledger or an API do not apply: the server's entry has its settings. */
function refuseLedgerOptions(values: {
  "rpc-url"?: string;
  "api-url"?: string;
  "program-id"?: string;
}): void {
  for (const option of ["rpc-url", "api-url", "program-id"] as const) {
    if (values[option] !== undefined) {
      throw new UsageError(
        `--${option} does not apply to abas mcp: the server's settings are in its entry of the config (its "args" and "env", such as ABAS_RPC_URL for abas-mcp-proxy)`,
      );
    }
  }
}

function parseToolArguments(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--args is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`--args must be a JSON object, such as '{"path":"/tmp"}'`);
  }
  return value as Record<string, unknown>;
}

/** A request's failure as the user sees it: the server's exit when it ended, else the MCP error. */
async function failure(
  entry: ServerEntry,
  transport: ServerProcessTransport,
  error: unknown,
): Promise<Error> {
  if (error instanceof CommandFailure) return error;
  const problem = transport.problem === undefined ? "" : ` (it had written ${transport.problem})`;
  // A server that exits fails the request first (a write to its closed stdin, say): its exit tells why.
  const exit = await transport.exitStatusWithin(1_000);
  if (exit !== undefined) {
    const how = exit.signal === null ? `with exit code ${exit.code}` : `by signal ${exit.signal}`;
    return new CommandFailure(
      `the server "${entry.name}" exited ${how} before answering${problem}; its stderr is above`,
      { exitCode: exit.code, signal: exit.signal },
    );
  }
  const code = (error as { code?: unknown }).code;
  // The SDK's messages can hold whole schema reports: one line, cut short.
  const message = (error as Error).message.replace(/\s+/g, " ");
  return new CommandFailure(
    `the server "${entry.name}" failed: ${message.length > 300 ? `${message.slice(0, 300)}…` : message}${problem}`,
    { ...(typeof code === "number" ? { mcpErrorCode: code } : {}) },
  );
}

/** How many pages of tools a server may answer tools/list with. */
const MAX_TOOL_PAGES = 1_000;

/**
 * Runs `request` with a client connected to the server (it prints the outcome and returns the exit
 * code), or reports why it could not, then lets the server finish.
 */
async function withServer(
  entry: ServerEntry,
  context: CommandContext,
  json: boolean,
  request: (client: Client) => Promise<number>,
): Promise<number> {
  const transport = new ServerProcessTransport(entry, {
    exitGraceMs: EXIT_GRACE_MS,
    onSlowExit: (graceMs) =>
      context.io.err(
        `abas mcp: waiting up to ${graceMs / 1000} s for the server "${entry.name}" to exit (an abas-mcp-proxy sends what it recorded first)`,
      ),
  });
  const client = new Client({ name: "abas", version: "0.1.0" });
  try {
    await client.connect(transport, { timeout: REQUEST_TIMEOUT_MS });
    return await request(client);
  } catch (error) {
    return reportFailure(await failure(entry, transport, error), context.io, { command: "mcp", json });
  } finally {
    await client.close();
    // The client lets go of a transport whose connection ended (a line over 10 MB): closed here.
    await transport.close();
  }
}

/** The text of a tool's result: its text blocks, other blocks named, else its structured content. */
function resultText(result: CallToolResult): string {
  const lines = result.content.map((block) => {
    switch (block.type) {
      case "text":
        return block.text;
      case "image":
      case "audio":
        return `[${block.type} ${block.mimeType}, ${block.data.length} base64 characters]`;
      case "resource":
        return "text" in block.resource ? block.resource.text : `[resource ${block.resource.uri}]`;
      case "resource_link":
        return `[resource link ${block.uri}]`;
      default:
        return `[${(block as { type: string }).type}]`;
    }
  });
  if (lines.length === 0 && result.structuredContent !== undefined) {
    return JSON.stringify(result.structuredContent, null, 2);
  }
  return lines.join("\n");
}

const firstLine = (text: string | undefined): string => (text ?? "").split("\n")[0]!.trim();

async function tools(args: readonly string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, {});
  refuseLedgerOptions(values);
  const json = values.json;
  if (positionals.length !== 2) throw new UsageError("mcp tools needs <mcp-config.json> <server>");
  const entry = readServerEntry(positionals[0]!, positionals[1]!);
  return await withServer(entry, context, json, async (client) => {
    const listed: Tool[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: REQUEST_TIMEOUT_MS,
      });
      listed.push(...page.tools);
      cursor = page.nextCursor;
      if (cursor !== undefined && (cursors.has(cursor) || cursors.size === MAX_TOOL_PAGES)) {
        throw new CommandFailure(
          `the server "${entry.name}" answered tools/list with ${cursors.has(cursor) ? `the cursor "${cursor}" again` : `more than ${MAX_TOOL_PAGES} pages`}`,
        );
      }
      if (cursor !== undefined) cursors.add(cursor);
    } while (cursor !== undefined);
    const text =
      listed.length === 0
        ? `the server "${entry.name}" has no tools`
        : table([["TOOL", "DESCRIPTION"], ...listed.map((tool) => [tool.name, firstLine(tool.description)])]);
    printResult(context.io, json, { tools: listed }, text);
    return 0;
  });
}

async function call(args: readonly string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, { args: { type: "string" } });
  refuseLedgerOptions(values);
  const json = values.json;
  if (positionals.length !== 3) throw new UsageError("mcp call needs <mcp-config.json> <server> <tool>");
  const toolArguments = parseToolArguments(values.args);
  const entry = readServerEntry(positionals[0]!, positionals[1]!);
  const name = positionals[2]!;
  return await withServer(entry, context, json, async (client) => {
    const result = (await client.callTool({ name, arguments: toolArguments }, undefined, {
      timeout: REQUEST_TIMEOUT_MS,
    })) as CallToolResult;
    if (result.isError === true) {
      const error = new CommandFailure(`the tool "${name}" reported an error: ${resultText(result)}`, {
        result,
      });
      return reportFailure(error, context.io, { command: "mcp", json });
    }
    printResult(context.io, json, { result }, resultText(result));
    return 0;
  });
}

const SUBCOMMANDS: Record<string, (args: readonly string[], context: CommandContext) => Promise<number>> = {
  tools,
  call,
};

async function run(args: readonly string[], context: CommandContext): Promise<number> {
  const [subcommand, ...rest] = args;
  const handler = subcommand === undefined ? undefined : SUBCOMMANDS[subcommand];
  if (handler === undefined) throw new UsageError("mcp needs a subcommand: tools or call");
  return await handler(rest, context);
}

export const mcpCommand: Command = {
  usage: USAGE,
  run,
};
