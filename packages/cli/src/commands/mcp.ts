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
import { GLOBAL_OPTIONS_HELP, parseOptions, resolveGlobalSettings } from "../parse-options.js";
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

  Then it closes the server's stdin and waits up to ${EXIT_GRACE_MS / 1000} s for it to exit, so that an
  abas-mcp-proxy in front of the server sends the calls it recorded and saves their receipts.

${GLOBAL_OPTIONS_HELP}`;

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
  // A server that exits fails the request first (a write to its closed stdin, say): its exit tells why.
  const exit = await transport.exitStatusWithin(1_000);
  if (exit !== undefined) {
    const how = exit.signal === null ? `with exit code ${exit.code}` : `by signal ${exit.signal}`;
    return new CommandFailure(
      `the server "${entry.name}" exited ${how} before answering (its stderr is above)`,
      { exitCode: exit.code, signal: exit.signal },
    );
  }
  const code = (error as { code?: unknown }).code;
  return new CommandFailure(`the server "${entry.name}" failed: ${(error as Error).message}`, {
    ...(typeof code === "number" ? { mcpErrorCode: code } : {}),
  });
}

/** Runs `use` with a client connected to the server, then lets the server finish. */
async function withServer<T>(
  entry: ServerEntry,
  context: CommandContext,
  use: (client: Client) => Promise<T>,
): Promise<T> {
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
    return await use(client);
  } catch (error) {
    throw await failure(entry, transport, error);
  } finally {
    await client.close();
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
  const settings = resolveGlobalSettings(values, context.env);
  if (positionals.length !== 2) throw new UsageError("mcp tools needs <mcp-config.json> <server>");
  const entry = readServerEntry(positionals[0]!, positionals[1]!);
  const listed: Tool[] = await withServer(entry, context, async (client) => {
    const all: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, {
        timeout: REQUEST_TIMEOUT_MS,
      });
      all.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return all;
  });
  const text =
    listed.length === 0
      ? `the server "${entry.name}" has no tools`
      : table([["TOOL", "DESCRIPTION"], ...listed.map((tool) => [tool.name, firstLine(tool.description)])]);
  printResult(context.io, settings.json, { tools: listed }, text);
  return 0;
}

async function call(args: readonly string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, { args: { type: "string" } });
  const settings = resolveGlobalSettings(values, context.env);
  if (positionals.length !== 3) throw new UsageError("mcp call needs <mcp-config.json> <server> <tool>");
  const toolArguments = parseToolArguments(values.args);
  const entry = readServerEntry(positionals[0]!, positionals[1]!);
  const name = positionals[2]!;
  const result = (await withServer(entry, context, (client) =>
    client.callTool({ name, arguments: toolArguments }, undefined, { timeout: REQUEST_TIMEOUT_MS }),
  )) as CallToolResult;
  if (result.isError === true) {
    throw new CommandFailure(`the tool "${name}" reported an error: ${resultText(result)}`, { result });
  }
  printResult(context.io, settings.json, { result }, resultText(result));
  return 0;
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
  name: "mcp",
  summary: "list the tools of a server in an MCP config, or call one, as a model host would",
  usage: USAGE,
  run,
};
