/**
 * The MCP server with its tools, and no transport: `bin.ts` connects it to stdio, tests may connect
 * it to anything.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";

import packageJson from "../package.json" with { type: "json" };
import type { McpServerConfig } from "./config.js";
import { silentLogger, type Logger } from "./logger.js";
import { createToolContext } from "./tool-context.js";
import { TOOLS } from "./tools/index.js";

export const SERVER_NAME = "abas";
export const SERVER_VERSION: string = packageJson.version;

const INSTRUCTIONS =
  "ABAS (Agent Behavior Attestation Service) records AI agents' actions on the Solana ledger: the agent's " +
  "Ed25519 key signs the SHA-256 hash of each action and the ABAS program stores it with the ledger's own " +
  "timestamp. Use get_agent_attestations for an agent's receipts and reputation, get_agent_reputation for its " +
  "score alone, and verify_action_hash to check, against the ledger itself, whether an action was attested, by " +
  "which agent and when. Agents are identified by their base58 public keys; hashes are 64 hex characters.";

export function createServer(config: McpServerConfig, logger: Logger = silentLogger): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, title: "ABAS agent attestations", version: SERVER_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const context = createToolContext(config, logger);
  for (const tool of TOOLS) tool.register(server, context);
  return server;
}
