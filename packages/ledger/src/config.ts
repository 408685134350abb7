/**
 * The ledger's settings: from `startLedger` options, or from command-line flags and environment
 * variables (flags win). Every value is checked here, so the rest of the code can trust it.
 */
import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";

import { isLogLevel, LOG_LEVELS, type LogLevel } from "./logger.js";
import { BUNDLED_PROGRAM_PATH } from "./package-files.js";

export const DEFAULT_RPC_PORT = 8899;
export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_SLOT_MS = 400;
/** Transactions between two snapshots; startup replays at most this many. */
export const DEFAULT_SNAPSHOT_EVERY = 1000;
export const DEFAULT_DATA_DIR = ".data/ledger";

/** The ABAS program as the repository builds it (the published package carries a copy). */
export const DEFAULT_PROGRAM_PATH = BUNDLED_PROGRAM_PATH;

export interface LedgerOptions {
  /** Where the event log and snapshots live; created when missing. */
  readonly dataDir: string;
  readonly host?: string;
  /** 0 picks a free port. Default 8899. */
  readonly rpcPort?: number;
  /** 0 picks a free port. Default: the RPC port + 1 (or a free port when the RPC port is 0). */
  readonly wsPort?: number;
  /** Wall-clock milliseconds per slot. Default 400. */
  readonly slotMs?: number;
  /** Delete the ledger in `dataDir` and start again from genesis. */
  readonly reset?: boolean;
  /** The program deployed at genesis. Default: the ABAS program this package carries. */
  readonly programPath?: string;
  readonly snapshotEvery?: number;
  readonly logLevel?: LogLevel;
}

export interface LedgerConfig {
  readonly dataDir: string;
  readonly host: string;
  readonly rpcPort: number;
  readonly wsPort: number;
  readonly slotMs: number;
  readonly reset: boolean;
  readonly programPath: string;
  readonly snapshotEvery: number;
  readonly logLevel: LogLevel;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

function checkInteger(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

/** Fills in defaults and validates; relative paths are taken from `cwd`. */
export function resolveLedgerConfig(options: LedgerOptions, cwd = process.cwd()): LedgerConfig {
  if (typeof options.dataDir !== "string" || options.dataDir.trim() === "") {
    throw new ConfigError("the data directory must be a non-empty path");
  }
  const host = options.host ?? DEFAULT_HOST;
  if (host.trim() === "") throw new ConfigError("the host must not be empty");
  const rpcPort = checkInteger("the RPC port", options.rpcPort ?? DEFAULT_RPC_PORT, 0, 65535);
  const defaultWsPort = rpcPort === 0 ? 0 : rpcPort + 1;
  const wsPort = checkInteger("the WebSocket port", options.wsPort ?? defaultWsPort, 0, 65535);
  if (wsPort !== 0 && wsPort === rpcPort) {
    throw new ConfigError(`the RPC and WebSocket ports must differ (both are ${rpcPort})`);
  }
  const programPath = resolve(cwd, options.programPath ?? DEFAULT_PROGRAM_PATH);
  return {
    dataDir: isAbsolute(options.dataDir) ? options.dataDir : resolve(cwd, options.dataDir),
    host,
    rpcPort,
    wsPort,
    slotMs: checkInteger("the slot duration in milliseconds", options.slotMs ?? DEFAULT_SLOT_MS, 1, 60_000),
    reset: options.reset ?? false,
    programPath,
    snapshotEvery: checkInteger(
      "the number of transactions between snapshots",
      options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY,
      1,
      1_000_000,
    ),
    logLevel: options.logLevel ?? "info",
  };
}

/** The program is only read at genesis, so a missing .so only matters for a new ledger. */
export function assertProgramExists(config: LedgerConfig): void {
  if (!existsSync(config.programPath)) {
    throw new ConfigError(
      `the program to deploy is missing at ${config.programPath}; build it with \`npm run program:build\` or pass --program <path>`,
    );
  }
}

export const USAGE = `Usage: abas-ledger [options]

A local Solana ledger on the real SVM (litesvm) with the ABAS program deployed, kept on disk.

Options (environment variable in brackets):
  --data-dir <path>        ledger directory [LEDGER_DATA_DIR] (default ${DEFAULT_DATA_DIR})
  --rpc-port <port>        HTTP JSON-RPC port, 0 = any free port [LEDGER_RPC_PORT] (default ${DEFAULT_RPC_PORT})
  --ws-port <port>         WebSocket port [LEDGER_WS_PORT] (default: RPC port + 1)
  --host <address>         interface to listen on [LEDGER_HOST] (default ${DEFAULT_HOST})
  --slot-ms <ms>           wall-clock milliseconds per slot [LEDGER_SLOT_MS] (default ${DEFAULT_SLOT_MS})
  --program <path>         program deployed at genesis [LEDGER_PROGRAM] (default: the ABAS program in this package)
  --snapshot-every <n>     transactions between snapshots [LEDGER_SNAPSHOT_EVERY] (default ${DEFAULT_SNAPSHOT_EVERY})
  --reset                  delete the ledger in the data directory and start from genesis
  --help                   show this help
Log level: LOG_LEVEL=${LOG_LEVELS.join("|")} (default info). Logs go to stderr.`;

type FlagName = "data-dir" | "rpc-port" | "ws-port" | "host" | "slot-ms" | "program" | "snapshot-every";
const VALUE_FLAGS: readonly FlagName[] = [
  "data-dir",
  "rpc-port",
  "ws-port",
  "host",
  "slot-ms",
  "program",
  "snapshot-every",
];
const ENV_NAMES: Record<FlagName, string> = {
  "data-dir": "LEDGER_DATA_DIR",
  "rpc-port": "LEDGER_RPC_PORT",
  "ws-port": "LEDGER_WS_PORT",
  host: "LEDGER_HOST",
  "slot-ms": "LEDGER_SLOT_MS",
  program: "LEDGER_PROGRAM",
  "snapshot-every": "LEDGER_SNAPSHOT_EVERY",
};

export type CommandLine = { readonly help: true } | { readonly help: false; readonly config: LedgerConfig };

function parseIntegerText(name: string, text: string): number {
  if (!/^\d+$/.test(text.trim())) throw new ConfigError(`${name} must be a whole number, got "${text}"`);
  return Number(text.trim());
}

/** Parses `abas-ledger` flags (`--name value` or `--name=value`) over the environment. */
export function parseCommandLine(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd = process.cwd(),
): CommandLine {
  const values = new Map<FlagName, string>();
  let reset = false;
  for (let i = 0; i < argv.length; i += 1) {
    const argument = argv[i]!;
    if (argument === "--help" || argument === "-h") return { help: true };
    if (argument === "--reset") {
      reset = true;
      continue;
    }
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(argument);
    const name = match?.[1] as FlagName | undefined;
    if (match === null || name === undefined || !VALUE_FLAGS.includes(name)) {
      throw new ConfigError(`unknown argument "${argument}" (see --help)`);
    }
    const value = match[2] ?? argv[i + 1];
    if (match[2] === undefined) i += 1;
    if (value === undefined || (match[2] === undefined && value.startsWith("--"))) {
      throw new ConfigError(`--${name} needs a value`);
    }
    values.set(name, value);
  }
  const read = (name: FlagName): string | undefined => {
    const fromFlag = values.get(name);
    if (fromFlag !== undefined) return fromFlag;
    const fromEnv = env[ENV_NAMES[name]];
    return fromEnv === undefined || fromEnv === "" ? undefined : fromEnv;
  };
  const integer = (name: FlagName, label: string): number | undefined => {
    const text = read(name);
    return text === undefined ? undefined : parseIntegerText(`${label} (--${name})`, text);
  };
  const logLevel = env.LOG_LEVEL === undefined || env.LOG_LEVEL === "" ? "info" : env.LOG_LEVEL.toLowerCase();
  if (!isLogLevel(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${env.LOG_LEVEL}"`);
  }
  const config = resolveLedgerConfig(
    {
      dataDir: read("data-dir") ?? DEFAULT_DATA_DIR,
      host: read("host"),
      rpcPort: integer("rpc-port", "the RPC port"),
      wsPort: integer("ws-port", "the WebSocket port"),
      slotMs: integer("slot-ms", "the slot duration"),
      programPath: read("program"),
      snapshotEvery: integer("snapshot-every", "the snapshot interval"),
      reset,
      logLevel,
    },
    cwd,
  );
  return { help: false, config };
}
