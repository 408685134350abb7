/**
 * `abas <command> ...`: finds the command, prints help, runs it, and turns any failure into a
 * message on stderr and an exit code (0 ok, 1 failed, 2 bad usage or configuration).
 */
import { processIo, type CliIo } from "./cli-io.js";
import type { Command, CommandEntry } from "./commands/command.js";
import { DEFAULT_RPC_URL, GLOBAL_OPTIONS_HELP } from "./parse-options.js";
import { EXIT_USAGE, reportFailure } from "./report-error.js";

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "keygen",
    summary: "create a key pair file (Solana CLI format)",
    load: async () => (await import("./commands/keygen.js")).keygenCommand,
  },
  {
    name: "airdrop",
    summary: "fund an account from the ledger's faucet (local ledger, devnet)",
    load: async () => (await import("./commands/airdrop.js")).airdropCommand,
  },
  {
    name: "agent",
    summary: "register an agent, change its status or policy, show it",
    load: async () => (await import("./commands/agent.js")).agentCommand,
  },
  {
    name: "attest",
    summary: "attest one action and print its receipt",
    load: async () => (await import("./commands/attest.js")).attestCommand,
  },
  {
    name: "batch",
    summary: "attest the actions of a JSONL file in batches of up to 100",
    load: async () => (await import("./commands/batch.js")).batchCommand,
  },
  {
    name: "verify",
    summary: "check receipts against the ledger, or look up an action hash",
    load: async () => (await import("./commands/verify.js")).verifyCommand,
  },
  {
    name: "receipts",
    summary: "list, verify and show the receipts an abas-mcp-proxy saved",
    load: async () => (await import("./commands/receipts.js")).receiptsCommand,
  },
  {
    name: "mcp",
    summary: "list the tools of a server in an MCP config, or call one, as a model host would",
    load: async () => (await import("./commands/mcp.js")).mcpCommand,
  },
  {
    name: "keys",
    summary: "create, list and revoke API keys of the REST API",
    load: async () => (await import("./commands/keys.js")).keysCommand,
  },
  {
    name: "reindex",
    summary: "rebuild the database from the ledger",
    load: async () => (await import("./commands/reindex.js")).reindexCommand,
  },
  {
    name: "status",
    summary: "health of the REST API, the ledger and the indexer",
    load: async () => (await import("./commands/status.js")).statusCommand,
  },
];

export const USAGE = `Usage: abas <command> [options]

ABAS: AI agents' signed action receipts, recorded by a Solana program.

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(9)} ${command.summary}`).join("\n")}

Run "abas <command> --help" for a command's options.

${GLOBAL_OPTIONS_HELP}`;

const VALUE_OPTIONS = new Set(["--rpc-url", "--api-url", "--program-id"]);
const OWN_HELP = new Set(["keys", "agent"]);

/** The index of the command name: the first argument that is neither an option nor an option's value. */
function commandIndex(args: readonly string[]): number {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    if (VALUE_OPTIONS.has(arg)) index++;
    else if (!arg.startsWith("-")) return index;
  }
  return -1;
}

/** What error messages need before the command has parsed its options. */
function errorSettings(args: readonly string[], env: NodeJS.ProcessEnv) {
  const flag = (name: string) => {
    const index = args.indexOf(name);
    if (index >= 0) return args[index + 1];
    return args.find((arg) => arg.startsWith(`${name}=`))?.slice(name.length + 1);
  };
  return {
    json: args.includes("--json"),
    settings: {
      rpcUrl: flag("--rpc-url") ?? (env.RPC_URL || DEFAULT_RPC_URL),
      programId: flag("--program-id") ?? (env.PROGRAM_ID || undefined),
    },
  };
}

export async function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  io: CliIo = processIo,
): Promise<number> {
  const index = commandIndex(args);
  if (index < 0) {
    if (args.includes("--help") || args.includes("-h") || args.length === 0) {
      (args.length === 0 ? io.err : io.out)(USAGE);
      return args.length === 0 ? EXIT_USAGE : 0;
    }
    io.err(`abas: a command is needed\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  const name = args[index]!;
  // Global options given before the command go after its own arguments (its subcommand stays first).
  const own = args.slice(index + 1);
  const end = own.indexOf("--");
  const leading = args.slice(0, index);
  const rest = end < 0 ? [...own, ...leading] : [...own.slice(0, end), ...leading, ...own.slice(end)];
  if (name === "help") {
    const topic = COMMANDS.find((entry) => entry.name === rest[0]);
    if (topic === undefined) {
      io.out(USAGE);
      return 0;
    }
    return await runCli([topic.name, "--help"], env, io);
  }
  const entry = COMMANDS.find((candidate) => candidate.name === name);
  if (entry === undefined) {
    // The service is its own package's command (abas-service), so this one stays a light client.
    const hint = name === "start" ? "; start the service with npm start (the abas-service command)" : "";
    io.err(`abas: unknown command "${name}"${hint}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  const { json, settings } = errorSettings(rest, env);
  let command: Command;
  try {
    command = await entry.load();
  } catch (error) {
    // A module that cannot load (a native dependency missing, say) is reported as any failure.
    return reportFailure(error, io, { command: entry.name, json, settings });
  }
  // keys has its own help and error reporting (the server's keys CLI), agent a help per subcommand.
  if (!OWN_HELP.has(entry.name) && (rest.includes("--help") || rest.includes("-h"))) {
    io.out(command.usage);
    return 0;
  }
  try {
    return await command.run(rest, { io, env });
  } catch (error) {
    return reportFailure(error, io, { command: entry.name, usage: command.usage, json, settings });
  }
}
