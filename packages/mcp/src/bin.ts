/**
 * `abas-mcp`: the MCP server on stdio, as a host (Claude Desktop, an IDE, any MCP client) starts it
 * with `npx -y @abas/mcp`. stdout carries only the protocol; every log line goes to stderr.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

import { LOCAL_PROGRAM_ID } from "@abas/sdk";

import { ConfigError, DEFAULT_API_URL, DEFAULT_RPC_URL, loadConfig, type McpServerConfig } from "./config.js";
import { SERVER_VERSION, createServer } from "./create-server.js";
import { createLogger, LOG_LEVELS } from "./logger.js";
import { TOOLS } from "./tools/index.js";
import { trackUnansweredRequests } from "./unanswered-requests.js";

const EXIT_BAD_CONFIG = 2;
const EXIT_SESSION_FAILED = 1;

const USAGE = `Usage: abas-mcp [--help | --version]

An MCP server on stdio, started by a model host from its MCP config (command "npx",
args ["-y", "@abas/mcp"]). Tools: ${TOOLS.map((tool) => tool.name).join(", ")}.

Settings come from the environment (the "env" of the server's entry in the MCP config):
  ABAS_API_URL     the ABAS REST API (default ${DEFAULT_API_URL})
  ABAS_API_KEY     an API key, abas_... (npm run keys -- create --name mcp); without one, only
                   verify_action_hash given an agent, txSignature or batchAddress answers
  ABAS_RPC_URL     a JSON-RPC node of the ledger (default ${DEFAULT_RPC_URL})
  ABAS_PROGRAM_ID  the ABAS program (default ${LOCAL_PROGRAM_ID})
  LOG_LEVEL        ${LOG_LEVELS.join(", ")} (default info); logs go to stderr`;

/** The command line takes no settings: `--help` and `--version` answer and exit, anything else is refused. */
function answerCommandLine(args: readonly string[]): void {
  if (args.length === 0) return;
  if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (args.length === 1 && args[0] === "--version") {
    process.stdout.write(`${SERVER_VERSION}\n`);
    process.exit(0);
  }
  process.stderr.write(
    `abas-mcp: unexpected arguments ${JSON.stringify(args)}; settings come from the environment\n\n${USAGE}\n`,
  );
  process.exit(EXIT_BAD_CONFIG);
}

async function main(): Promise<void> {
  answerCommandLine(process.argv.slice(2));
  let config: McpServerConfig;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(
      `abas-mcp: ${error.message}\nSet these in the "env" of the server's entry in the MCP config (see the @abas/mcp README).\n`,
    );
    process.exit(EXIT_BAD_CONFIG);
  }
  const logger = createLogger(config.logLevel);
  const server = createServer(config, logger);
  const transport = new StdioServerTransport();

  let closing = false;
  const shutdown = (reason: string) => {
    if (closing) return;
    closing = true;
    logger.debug(`stopping: ${reason}`);
    void server.close().finally(() => process.exit(0));
  };
  // The host ends the session with a signal, by no longer reading stdout, or by closing stdin (see below).
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    shutdown("stdout closed by the host");
  });
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  // The SDK skips a line on stdin that is not a JSON-RPC message and reports it here. Its transport
  // closes itself only on a line over its limit of 10 MB: the session cannot go on, and the host
  // learns it from the exit code and the last error on stderr.
  let lastError: Error | undefined;
  server.server.onerror = (error) => {
    lastError = error;
    logger.warn(`MCP session: ${describeSessionError(error)}`);
  };
  server.server.onclose = () => {
    if (closing) return;
    closing = true;
    logger.error(`stopping: stdin can no longer be read (${lastError?.message ?? "the transport closed"})`);
    process.exit(EXIT_SESSION_FAILED);
  };

  await server.connect(transport);
  // Once stdin is closed, the requests the host sent before are still answered.
  const requests = trackUnansweredRequests(transport);
  process.stdin.once("end", () => void requests.allAnswered().then(() => shutdown("stdin closed")));
  logger.info(
    `abas-mcp ${SERVER_VERSION} ready on stdio: API ${config.apiUrl} (${config.apiKey ? "key set" : "no ABAS_API_KEY"}), ` +
      `ledger ${config.shownRpcUrl}, program ${config.programId}`,
  );
  if (!config.apiKey) {
    logger.warn("ABAS_API_KEY is not set: the tools that need the REST API will answer how to create a key");
  }
}

function describeSessionError(error: Error): string {
  if (error instanceof SyntaxError) return `a line on stdin is not JSON, skipped (${error.message})`;
  if (error.name === "ZodError") return "a line on stdin is JSON but not a JSON-RPC message, skipped";
  return error.message;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `abas-mcp: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
