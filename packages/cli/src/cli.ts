/**
 * `abas <command> ...`: finds the command, prints help, runs it, and turns any failure into a
 * message on stderr and an exit code (0 ok, 1 failed, 2 bad usage or configuration).
 */
import { processIo, type CliIo } from "./cli-io.js";
import { agentCommand } from "./commands/agent.js";
import { attestCommand } from "./commands/attest.js";
import { batchCommand } from "./commands/batch.js";
import type { Command } from "./commands/command.js";
import { keygenCommand } from "./commands/keygen.js";
import { keysCommand } from "./commands/keys.js";
import { mcpCommand } from "./commands/mcp.js";
import { receiptsCommand } from "./commands/receipts.js";
import { reindexCommand } from "./commands/reindex.js";
import { statusCommand } from "./commands/status.js";
import { verifyCommand } from "./commands/verify.js";
import { DEFAULT_RPC_URL, GLOBAL_OPTIONS_HELP } from "./parse-options.js";
import { EXIT_USAGE, reportFailure } from "./report-error.js";

export const COMMANDS: readonly Command[] = [
  keygenCommand,
  agentCommand,
  attestCommand,
  batchCommand,
  verifyCommand,
  receiptsCommand,
  mcpCommand,
  keysCommand,
  reindexCommand,
  statusCommand,
];

export const USAGE = `Usage: abas <command> [options]

ABAS: AI agents' signed action receipts, recorded by a Solana program.

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(9)} ${command.summary}`).join("\n")}

Run "abas <command> --help" for a command's options.

${GLOBAL_OPTIONS_HELP}`;

const VALUE_OPTIONS = new Set(["--rpc-url", "--api-url", "--program-id"]);

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
    settings: { rpcUrl: flag("--rpc-url") ?? (env.RPC_URL || DEFAULT_RPC_URL) },
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
    const topic = COMMANDS.find((command) => command.name === rest[0]);
    io.out(topic?.usage ?? USAGE);
    return 0;
  }
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command === undefined) {
    // The service is its own package's command (abas-service), so this one stays a light client.
    const hint = name === "start" ? "; start the service with npm start (the abas-service command)" : "";
    io.err(`abas: unknown command "${name}"${hint}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  // keys has its own help and error reporting (the server's keys CLI).
  if (
    command !== keysCommand &&
    command !== agentCommand &&
    (rest.includes("--help") || rest.includes("-h"))
  ) {
    io.out(command.usage);
    return 0;
  }
  const { json, settings } = errorSettings(rest, env);
  try {
    return await command.run(rest, { io, env });
  } catch (error) {
    return reportFailure(error, io, { command: command.name, usage: command.usage, json, settings });
  }
}
